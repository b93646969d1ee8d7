/**
 * Clients that register themselves (RFC 7591), where the operator's policy (OIDC_REGISTRATION)
 * lets them: `closed` refuses every registration, `reviewed` stores the client waiting for the
 * operator's `clients approve`, `open` makes it usable at once. A registered client is the
 * client's own word, so it gets less than the operator's: PKCE always, no back-channel logout, no
 * project, redirect URIs that must be https (or loopback, for native apps: RFC 8252 §7.3), and a
 * secret, if it asks for one, that expires.
 */
import { DAY, MINUTE } from "../../clock";
import * as clients from "../../store/oidc-clients";
import type { Caller } from "../model/caller";
import type { Deps } from "../deps";
import { AppError, ensure } from "../errors";
import { firstParty, type OidcClient, type TokenAuth } from "../model/oidc-client";
import { sha256 } from "../secrets";
import { registeredFor, type GrantTypeName } from "./grant-types";
import { countRegistration } from "./registration-budget";

/** How long a self-registered client's secret works: one that never expires outlives its holder's care. */
export const SELF_SECRET_LIFETIME_MS = 180 * DAY;
export const MAX_REDIRECT_URIS = 10;
export const MAX_CLIENT_NAME = 100;
export const MAX_URI_LENGTH = 2048;
/** Every self-registered client's id begins so: the operator can tell them apart at a glance. */
export const SELF_CLIENT_PREFIX = "dyn_";

/** The registration's metadata, as checked (RFC 7591 §2): what is stored and answered. */
export interface Metadata {
  redirectUris: string[];
  clientName: string;
  tokenAuth: TokenAuth;
  grantTypes: GrantTypeName[];
  clientUri: string | null;
  logoUri: string | null;
}

const TOKEN_AUTH: readonly TokenAuth[] = ["client_secret_basic", "client_secret_post", "none"];
const GRANTS: readonly GrantTypeName[] = ["authorization_code", "refresh_token"];
/** Printable ASCII: what a URI is written in, with nothing a parser would strip or fold. */
const URI_CHARS = /^[\x21-\x7e]+$/;
/** A loopback redirect URI as RFC 8252 §7.3 has it: IP literal, any port, then a path. */
const LOOPBACK = /^http:\/\/(127\.0\.0\.1|\[::1\])(?::(\d{1,5}))?(?=\/|$)/;

const metadataError = (detail: string) => new AppError("oauth_invalid_client_metadata", detail);
const redirectError = (detail: string) => new AppError("oauth_invalid_redirect_uri", detail);

/** Absent, as RFC 7591 clients often send null for what they leave out. */
const absent = (value: unknown) => value === undefined || value === null;

/**
 * Whether a client may register `value` as a redirect URI: https, or http on the loopback IP
 * literals (never `localhost`, which a hosts file or resolver may send elsewhere); no fragment, no
 * wildcard, no user info; printable ASCII throughout, so the string matched at authorise is the
 * one the browser is sent to. Private-use schemes (`com.example.app:/cb`) are refused for now.
 */
export function isSelfRedirectUri(value: string): boolean {
  if (value.length > MAX_URI_LENGTH || !URI_CHARS.test(value) || !URL.canParse(value)) return false;
  if (value.includes("#") || value.includes("*")) return false;
  const url = new URL(value);
  if (url.username !== "" || url.password !== "" || url.hostname === "") return false;
  if (url.protocol === "https:") return value.toLowerCase().startsWith("https://");
  const loopback = LOOPBACK.exec(value);
  return url.protocol === "http:" && loopback !== null && Number(loopback[2] ?? "80") <= 65535;
}

/** An https URL for a client's home page or logo, as it gave it; refused as metadata otherwise. */
function webUri(field: string, value: unknown): string | null {
  if (absent(value)) return null;
  const ok =
    typeof value === "string" &&
    value.length <= MAX_URI_LENGTH &&
    URI_CHARS.test(value) &&
    URL.canParse(value) &&
    value.toLowerCase().startsWith("https://") &&
    new URL(value).username === "" &&
    new URL(value).password === "";
  if (!ok) throw metadataError(`${field} must be an https URL of at most ${MAX_URI_LENGTH} characters`);
  return value;
}

/**
 * What could disguise a name: control and format characters (bidi overrides, zero-width joiners),
 * the letters that draw nothing (Hangul fillers, the braille blank), and more than two combining
 * marks in a row.
 */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\u115f\u1160\u3164\uffa0\u2800]|\p{M}{3,}/u;

function clientName(value: unknown): string {
  const ok =
    typeof value === "string" &&
    value.isWellFormed() &&
    value.trim() !== "" &&
    [...value].length <= MAX_CLIENT_NAME &&
    !HIDDEN.test(value);
  if (!ok) throw metadataError(`client_name is required: 1 to ${MAX_CLIENT_NAME} characters, no control characters`);
  return value;
}

/** Letters of other scripts drawn as Latin ones, by the Latin letter they pass for: capitals first. */
// prettier-ignore
const CAPITAL_LOOK_ALIKES: Record<string, string> = {
  А: "a", В: "b", Е: "e", К: "k", М: "m", Н: "h", О: "o", Р: "p", С: "c", Т: "t", Х: "x", Ѕ: "s", І: "i", Ј: "j",
  Α: "a", Β: "b", Ε: "e", Ζ: "z", Η: "h", Ι: "i", Κ: "k", Μ: "m", Ν: "n", Ο: "o", Ρ: "p", Τ: "t", Υ: "y", Χ: "x",
};
// prettier-ignore
const LOOK_ALIKES: Record<string, string> = {
  а: "a", в: "b", е: "e", ё: "e", к: "k", м: "m", н: "h", о: "o", р: "p", с: "c", т: "t", у: "y", х: "x",
  і: "i", ї: "i", ј: "j", ѕ: "s", ԁ: "d", ԛ: "q", ԝ: "w", ү: "y", һ: "h", ɡ: "g",
  α: "a", β: "b", ε: "e", η: "n", ι: "i", κ: "k", ν: "v", ο: "o", ρ: "p", τ: "t", υ: "u", χ: "x",
  "0": "o", "1": "l", "|": "l",
};

/**
 * What a name looks like, for telling one name from its look-alike: compatibility forms folded
 * (NFKD), letters of other scripts read as the Latin letters they are drawn as, lower case,
 * accents and spaces dropped.
 */
export function nameSkeleton(name: string): string {
  return [...name.normalize("NFKD")]
    .filter((ch) => !/[\p{M}\s]/u.test(ch))
    .map((ch) => CAPITAL_LOOK_ALIKES[ch] ?? LOOK_ALIKES[ch.toLowerCase()] ?? ch.toLowerCase())
    .join("")
    .replace(/rn/g, "m");
}

/** How long an instance keeps the operator's clients' names: one read a minute, however many register. */
export const OPERATOR_NAMES_TTL_MS = MINUTE;
let operatorNamesRead: { at: number; names: Promise<string[]> } | null = null;

export async function operatorNames(deps: Pick<Deps, "store" | "clock">): Promise<string[]> {
  const now = deps.clock.now().getTime();
  if (operatorNamesRead === null || now - operatorNamesRead.at >= OPERATOR_NAMES_TTL_MS || now < operatorNamesRead.at) {
    const names = clients.operatorNames(deps.store);
    operatorNamesRead = { at: now, names };
    // A read that failed is not kept: the next registration reads again.
    names.catch(() => (operatorNamesRead = null));
  }
  return operatorNamesRead.names;
}

/**
 * Refuses a name that passes for one of the operator's own clients (`taken`, their names): the
 * consent page says an app registered itself, but "Back to <name>" and the person's list of apps
 * show its name, and it must not be the family's.
 */
export function ensureNameNotTaken(name: string, taken: readonly string[]): void {
  const skeleton = nameSkeleton(name);
  if (taken.some((t) => nameSkeleton(t) === skeleton))
    throw metadataError("client_name is the name of one of this service's own apps, or looks like it");
}

function stringArray(value: unknown): string[] | null {
  return Array.isArray(value) && value.every((v) => typeof v === "string") ? (value as string[]) : null;
}

/**
 * The registration request's metadata, checked (RFC 7591 §2, §3.2.2): a redirect URI this
 * provider would not send a browser to is `invalid_redirect_uri`, anything else it does not take
 * `invalid_client_metadata`. Fields it does not know are passed over, as §2 asks; `scope` too:
 * what a client is given is decided at authorise, not by what it registers.
 */
export function checkMetadata(body: Record<string, unknown>): Metadata {
  const uris = stringArray(body.redirect_uris);
  if (uris === null || uris.length === 0 || uris.length > MAX_REDIRECT_URIS)
    throw redirectError(`redirect_uris is required: 1 to ${MAX_REDIRECT_URIS} URIs`);
  const bad = uris.find((u) => !isSelfRedirectUri(u));
  if (bad !== undefined)
    throw redirectError(
      "each redirect URI must be https, or http on 127.0.0.1 or [::1], with no fragment, wildcard or user info",
    );
  const tokenAuth = absent(body.token_endpoint_auth_method) ? "client_secret_basic" : body.token_endpoint_auth_method;
  if (!TOKEN_AUTH.includes(tokenAuth as TokenAuth))
    throw metadataError(`token_endpoint_auth_method must be one of ${TOKEN_AUTH.join(", ")}`);
  const grants = absent(body.grant_types) ? ["authorization_code"] : stringArray(body.grant_types);
  if (
    grants === null ||
    !grants.includes("authorization_code") ||
    !grants.every((g) => GRANTS.includes(g as GrantTypeName))
  )
    throw metadataError("grant_types must hold authorization_code, and refresh_token if wanted, and nothing else");
  const responses = absent(body.response_types) ? ["code"] : stringArray(body.response_types);
  if (responses === null || responses.length !== 1 || responses[0] !== "code")
    throw metadataError('response_types must be ["code"]');
  return {
    redirectUris: [...new Set(uris)],
    clientName: clientName(body.client_name),
    tokenAuth: tokenAuth as TokenAuth,
    grantTypes: GRANTS.filter((g) => grants.includes(g)),
    clientUri: webUri("client_uri", body.client_uri),
    logoUri: webUri("logo_uri", body.logo_uri),
  };
}

/**
 * Whether `requested` is a redirect URI of the client: the registered string exactly, or, for a
 * self-registered client's loopback URI, the same on any port (RFC 8252 §7.3: a native app
 * listens on whatever port the system gives it). Nothing is normalised: the scheme, the address
 * and everything from the path on must be the registered characters.
 */
export function redirectRegistered(client: Pick<OidcClient, "redirectUris" | "registeredBy">, requested: string) {
  if (client.redirectUris.includes(requested)) return true;
  if (firstParty(client)) return false;
  const portless = (uri: string) => {
    const m = LOOPBACK.exec(uri);
    return m === null ? null : `http://${m[1]}${uri.slice(m[0].length)}`;
  };
  const wanted = portless(requested);
  return wanted !== null && isSelfRedirectUri(requested) && client.redirectUris.some((u) => portless(u) === wanted);
}

/**
 * What a client that registered itself is, from its checked metadata: less than the operator's
 * (PKCE always, as a public client has nothing else binding a code to it; no back-channel logout,
 * no project), waiting for review or approved as the policy says. The caller gives its id, its
 * secrets and how it registered.
 */
export function selfRegisteredClient(
  deps: Pick<Deps, "config">,
  metadata: Metadata,
  now: Date,
): Omit<OidcClient, "clientId" | "secrets" | "registeredBy"> {
  return {
    name: metadata.clientName,
    redirectUris: metadata.redirectUris,
    postLogoutRedirectUris: [],
    backchannelLogoutUri: null,
    pkce: "required",
    ...registeredFor(metadata.grantTypes),
    project: null,
    disabled: false,
    review: deps.config.oidcRegistration.policy === "open" ? "approved" : "waiting",
    clientUri: metadata.clientUri,
    logoUri: metadata.logoUri,
    tokenAuth: metadata.tokenAuth,
    triedBy: [],
    document: null,
    createdAt: now,
  };
}

/** Refuses every registration while the operator's policy is `closed`. */
export function ensureRegistrationOpen(deps: Pick<Deps, "config">): void {
  ensure(deps.config.oidcRegistration.policy !== "closed", "oauth_registration_closed");
}

/** RFC 7591 §3.2.1: the client's id and secret, and its metadata as registered. */
export interface RegistrationAnswer {
  client_id: string;
  client_id_issued_at: number;
  client_secret?: string;
  client_secret_expires_at?: number;
  client_name: string;
  redirect_uris: string[];
  token_endpoint_auth_method: TokenAuth;
  grant_types: GrantTypeName[];
  response_types: ["code"];
  client_uri?: string;
  logo_uri?: string;
}

const seconds = (at: Date) => Math.floor(at.getTime() / 1000);

/**
 * Registers a client on its own word: waiting for review or approved, as the policy says, within
 * the registration budgets (core/oidc/registration-budget), counted in the transaction that
 * stores it. A confidential client's secret is returned this once; only its digest is stored.
 */
export async function registerSelf(
  deps: Pick<Deps, "store" | "clock" | "random" | "transaction" | "pepper" | "config" | "log">,
  body: Record<string, unknown>,
  from: Caller,
): Promise<RegistrationAnswer> {
  ensureRegistrationOpen(deps);
  const metadata = checkMetadata(body);
  ensureNameNotTaken(metadata.clientName, await operatorNames(deps));
  const now = deps.clock.now();
  const confidential = metadata.tokenAuth !== "none";
  const clientSecret = confidential ? deps.random.token(32) : null;
  const secretExpires = new Date(now.getTime() + SELF_SECRET_LIFETIME_MS);
  const client: OidcClient = {
    ...selfRegisteredClient(deps, metadata, now),
    clientId: `${SELF_CLIENT_PREFIX}${deps.random.id()}`,
    // Hashed, as the operator's clients' are; it stops working at its expiry (secretMatches).
    secrets: clientSecret === null ? [] : [{ hash: sha256(clientSecret), createdAt: now, expiresAt: secretExpires }],
    registeredBy: "self",
  };
  await deps.transaction(async (tx) => {
    await countRegistration(deps, tx, from);
    await clients.create(deps.store, client, tx);
  });
  // Where the operator reads who came in: the client, its review, and the hosts it sends people to.
  deps.log.info("client registered itself", {
    clientId: client.clientId,
    review: client.review,
    tokenAuth: client.tokenAuth,
    redirectHosts: [...new Set(client.redirectUris.map((u) => new URL(u).host))],
  });
  return {
    client_id: client.clientId,
    client_id_issued_at: seconds(now),
    ...(clientSecret === null ? {} : { client_secret: clientSecret, client_secret_expires_at: seconds(secretExpires) }),
    client_name: client.name,
    redirect_uris: client.redirectUris,
    token_endpoint_auth_method: client.tokenAuth,
    grant_types: metadata.grantTypes,
    response_types: ["code"],
    ...(client.clientUri === null ? {} : { client_uri: client.clientUri }),
    ...(client.logoUri === null ? {} : { logo_uri: client.logoUri }),
  };
}
