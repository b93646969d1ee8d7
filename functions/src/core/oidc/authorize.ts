import { MINUTE } from "../../clock";
import type { Deps } from "../deps";
import * as codes from "../../store/oidc-codes";
import { ensure } from "../errors";
import { isS256Challenge } from "../pkce";
import { sha256 } from "../secrets";
import { meetsAcr, requestedAcr } from "./acr";
import { findClient, isDocumentClientId } from "./clients";
import { documentClient } from "./metadata-documents";
import * as clients from "../../store/oidc-clients";
import type { Caller } from "../model/caller";
import { redirectRegistered } from "./registration";
import { OFFLINE_ACCESS, SCOPES } from "./scopes";
import { usable, type OidcClient } from "../model/oidc-client";
import type { Resource } from "../model/resource";
import { SCOPE_TOKEN } from "./resources";

/** The code travels once through the browser and is redeemed by the client's server at once. */
export const AUTHORIZATION_CODE_LIFETIME_MS = 1 * MINUTE;

/** The request's parameters other than the client and its redirect URI, each given at most once. */
export interface AuthorizeParams {
  responseType?: string;
  scope?: string;
  state?: string;
  nonce?: string;
  codeChallenge?: string;
  codeChallengeMethod?: string;
  prompt?: string;
  maxAge?: string;
  /** `acr_values`: the authentication context classes asked for, in order of preference. */
  acrValues?: string;
  /** Request objects (OpenID Connect Core §6): not supported, and refused rather than ignored. */
  request?: string;
  requestUri?: string;
}

/**
 * A registered client and one of its registered redirect URIs: where refusals may now be sent.
 * The client may still be waiting for review (a self-registered one, under `reviewed`): the
 * caller then serves nothing but the page that says so.
 */
export interface AuthorizeTarget {
  client: OidcClient;
  redirectUri: string;
}

export interface AuthorizeRequest {
  client: OidcClient;
  redirectUri: string;
  scopes: string[];
  state: string | null;
  nonce: string | null;
  codeChallenge: string | null;
  /** `prompt` (OpenID Connect Core §3.1.2.1): none, or the identity host's pages it asks for. */
  prompt: { none: boolean; login: boolean; selectAccount: boolean; consent: boolean };
  /** `max_age` in seconds: how long ago the person may have authenticated; null for any time. */
  maxAgeSeconds: number | null;
  /** The authentication context class the sign-in must meet (core/oidc/acr); null when none is asked. */
  acr: string | null;
  /** The resource (RFC 8707) the access token is for, registered (core/oidc/resources); null: the provider's own. */
  resource: Resource | null;
}

/**
 * `consent` asks the person again, on the consent page, where a client registered itself
 * (core/oidc/consents); for the operator's clients it needs no page, their registration standing
 * for it. Any other value is refused rather than silently ignored.
 */
export const PROMPTS = ["none", "login", "consent", "select_account"] as const;
const MAX_AGE = /^\d{1,10}$/;

function parsePrompt(value: string | undefined): AuthorizeRequest["prompt"] {
  const prompts = (value ?? "").split(" ").filter((p) => p !== "");
  ensure(
    prompts.every((p) => (PROMPTS as readonly string[]).includes(p)),
    "oauth_invalid_request",
    `prompt may only be ${PROMPTS.join(", ")}`,
  );
  // "none" promises no page at all, so it cannot be asked together with one (§3.1.2.1).
  ensure(
    !prompts.includes("none") || prompts.length === 1,
    "oauth_invalid_request",
    "prompt none cannot be combined with another value",
  );
  return {
    none: prompts.includes("none"),
    login: prompts.includes("login"),
    selectAccount: prompts.includes("select_account"),
    consent: prompts.includes("consent"),
  };
}

/**
 * What must hold before anything may be sent to `redirect_uri`: the client, and its exact
 * redirect URI. Until both are known good, a refusal is answered to the caller and never
 * delivered to the URI in the request (an open redirector otherwise).
 */
export async function authorizeTarget(
  deps: Parameters<typeof documentClient>[0],
  clientId: string | undefined,
  redirectUri: string | undefined,
  from: Caller,
): Promise<AuthorizeTarget> {
  ensure(clientId, "oauth_invalid_request", "client_id is required");
  // An https client_id is a metadata document's URL (core/oidc/metadata-documents), read here.
  const client = isDocumentClientId(clientId)
    ? await documentClient(deps, clientId, from)
    : ((await findClient(deps, clientId)) ?? (await clients.findById(deps.store, clientId)));
  // Usable, or waiting for review; a blocked or disabled client is as unknown as an id nobody has.
  ensure(
    client !== null && (usable(client) || (!client.disabled && client.review === "waiting")),
    "oauth_unknown_client",
  );
  // Exact string match against the registered list: no prefix, no wildcard, no normalisation;
  // only a self-registered client's loopback URI matches on any port (RFC 8252 §7.3).
  ensure(redirectUri !== undefined && redirectRegistered(client, redirectUri), "oauth_redirect_not_registered");
  return { client, redirectUri };
}

/**
 * The rest of the request, for a known client at a registered redirect URI: a refusal from
 * here on is the client's to hear at that URI (RFC 6749 §4.1.2.1). `resource` is the registered
 * resource the request named (the caller has refused one that names none): the scopes it defines
 * are granted beside the provider's own, and any other scope is passed over.
 */
export function checkAuthorizeRequest(
  target: AuthorizeTarget,
  p: AuthorizeParams,
  resource: Resource | null = null,
): AuthorizeRequest {
  const { client, redirectUri } = target;
  ensure(p.request === undefined, "oauth_request_not_supported");
  ensure(p.requestUri === undefined, "oauth_request_uri_not_supported");
  ensure(p.responseType !== undefined, "oauth_invalid_request", "response_type is required");
  ensure(p.responseType === "code", "oauth_unsupported_response_type");
  const scopes = (p.scope ?? "").split(" ").filter((s) => s !== "");
  ensure(
    scopes.every((s) => SCOPE_TOKEN.test(s)),
    "oauth_invalid_scope",
  );
  // Without openid it is a plain OAuth request, for a resource's token alone (as MCP clients ask):
  // no ID token is issued for it. For the provider's own tokens, openid is what there is to ask for.
  ensure(
    scopes.includes("openid") || resource !== null,
    "oauth_invalid_request",
    "scope must include openid, unless a resource is named",
  );
  // PKCE for every client, confidential ones too (RFC 9700 §2.1.1); `plain` would protect nothing.
  // A client registered PKCE-optional may send no challenge at all; one that is sent must be S256.
  const noChallenge = p.codeChallenge === undefined && p.codeChallengeMethod === undefined;
  ensure(
    (noChallenge && client.pkce === "optional") ||
      (p.codeChallengeMethod === "S256" && p.codeChallenge !== undefined && isS256Challenge(p.codeChallenge)),
    "oauth_pkce_required",
  );
  ensure(
    p.maxAge === undefined || MAX_AGE.test(p.maxAge),
    "oauth_invalid_request",
    "max_age must be a whole number of seconds",
  );
  const granted = scopes.filter(
    (s) =>
      ((SCOPES as readonly string[]).includes(s) && (s !== OFFLINE_ACCESS || client.refreshTokens)) ||
      (resource?.scopes.includes(s) ?? false),
  );
  // Without openid, a request asks for the resource's scopes: one that asks for none of them asks
  // for nothing, and no token is made for nothing.
  ensure(
    granted.includes("openid") || granted.some((s) => resource?.scopes.includes(s) ?? false),
    "oauth_invalid_scope",
  );
  return {
    client,
    redirectUri,
    scopes: granted,
    state: p.state ?? null,
    nonce: p.nonce ?? null,
    codeChallenge: p.codeChallenge ?? null,
    prompt: parsePrompt(p.prompt),
    maxAgeSeconds: p.maxAge === undefined ? null : Number(p.maxAge),
    acr: requestedAcr(p.acrValues),
    resource,
  };
}

/**
 * What the authorise endpoint does next for a valid request:
 * - `sign-in`: send the browser to the identity host, asking it for `prompt` (null: its usual page),
 *   and with `passkey` for a passkey sign-in only (the class asked for needs one).
 * - `error`: tell the client at its redirect URI.
 * - `code`: issue one, for the session given.
 * A sign-in too old for `max_age`, or one that does not meet the class asked for (an email code
 * where `phr` is asked), counts as none. With `prompt=none` nothing may be shown, so where a page
 * would be needed the client hears `login_required` instead.
 */
export type AuthorizeStep<S> =
  | { kind: "sign-in"; prompt: string | null; passkey: boolean }
  | { kind: "error"; error: "login_required" | "access_denied" }
  | { kind: "code"; session: S };

export function authorizeStep<S extends { authTime: Date; amr: string[]; approved: boolean }>(
  request: Pick<AuthorizeRequest, "prompt" | "maxAgeSeconds" | "acr">,
  session: S | null,
  now: Date,
): AuthorizeStep<S> {
  const { prompt, maxAgeSeconds, acr } = request;
  // In whole seconds, as `auth_time` is carried and as a relying party checks it.
  const ageSeconds =
    session === null ? 0 : Math.floor(now.getTime() / 1000) - Math.floor(session.authTime.getTime() / 1000);
  const stale = session !== null && maxAgeSeconds !== null && ageSeconds > maxAgeSeconds;
  // A session that began another way steps up with a passkey; the email code is not enough here.
  const weak = session !== null && acr !== null && !meetsAcr(session.amr, acr);
  if (session === null || stale || weak || prompt.login || prompt.selectAccount) {
    if (prompt.none) return { kind: "error", error: "login_required" };
    // A sign-in the person already holds is not enough when it is too old or a new one was asked for.
    const pages = [...(prompt.login || stale ? ["login"] : []), ...(prompt.selectAccount ? ["select_account"] : [])];
    return { kind: "sign-in", prompt: pages.length === 0 ? null : pages.join(" "), passkey: acr !== null };
  }
  return session.approved ? { kind: "code", session } : { kind: "error", error: "access_denied" };
}

/** Issues a single-use authorization code for a signed-in, approved person. Returns the code. */
export async function issueAuthorizationCode(
  deps: Pick<Deps, "store" | "clock" | "random">,
  request: AuthorizeRequest,
  person: { id: string },
  principal: { uid: string; authTime: Date; amr: string[]; sessionKey: string | null },
): Promise<string> {
  const code = deps.random.token(32);
  const now = deps.clock.now();
  await codes.save(deps.store, {
    hash: sha256(code),
    clientId: request.client.clientId,
    redirectUri: request.redirectUri,
    codeChallenge: request.codeChallenge,
    nonce: request.nonce,
    scopes: request.scopes,
    uid: principal.uid,
    personId: person.id,
    authTime: principal.authTime,
    amr: principal.amr,
    // Only a session that meets the class asked for reaches here (authorizeStep).
    acr: request.acr,
    createdAt: now,
    expiresAt: new Date(now.getTime() + AUTHORIZATION_CODE_LIFETIME_MS),
    usedAt: null,
    accessTokenHash: null,
    grantId: null,
    sessionKey: principal.sessionKey,
    resource: request.resource?.url ?? null,
  });
  return code;
}
