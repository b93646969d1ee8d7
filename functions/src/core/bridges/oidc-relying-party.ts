import { createHash } from "node:crypto";
import { createRemoteJWKSet, customFetch, errors, jwtVerify, type JWTVerifyGetKey } from "jose";
import type { FederatedProvider } from "../settings";
import { AppError } from "../errors";
import type { Fetch } from "../ports";
import { constantTimeEqual } from "../secrets";

/**
 * The relying-party half of OpenID Connect (authorization code flow with PKCE, client secret,
 * nonce), as far as the federated bridge needs it: send the browser to the provider, redeem the
 * code it sends back at the provider's token endpoint, and accept the ID token only when it
 * verifies against the provider's published keys, comes from its issuer, is for our client and
 * carries this sign-in's nonce. A plain OAuth 2.0 provider takes the same flow without the ID
 * token: its access token is what the code gives.
 */
export interface ProviderMetadata {
  /** null: plain OAuth 2.0, no ID tokens. */
  issuer: string | null;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  jwksUri: string | null;
}

/** Provider metadata and key sets, per instance: discovery runs once per issuer. */
const metadata = new Map<string, Promise<ProviderMetadata>>();
const keySets = new Map<string, JWTVerifyGetKey>();

/** The provider's discovery document (OpenID Connect Discovery §4); a failed fetch is retried by the next sign-in. */
export function discover(fetch: Fetch, provider: FederatedProvider, timeoutMs: number): Promise<ProviderMetadata> {
  const { issuer, endpoints } = provider;
  if (issuer === null)
    return Promise.resolve({
      issuer: null,
      authorizationEndpoint: endpoints?.authorization as string,
      tokenEndpoint: endpoints?.token as string,
      jwksUri: null,
    });
  let found = metadata.get(issuer);
  if (found === undefined) {
    found = fetchMetadata(fetch, issuer, timeoutMs);
    metadata.set(issuer, found);
    found.catch(() => metadata.delete(issuer));
  }
  return found;
}

async function fetchMetadata(fetch: Fetch, issuer: string, timeoutMs: number): Promise<ProviderMetadata> {
  const res = await fetch(`${issuer.replace(/\/$/, "")}/.well-known/openid-configuration`, {
    redirect: "error",
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (res.status !== 200) throw new Error(`discovery answered ${res.status}`);
  const doc = (await res.json()) as Record<string, unknown>;
  const url = (key: string): string => {
    const value = doc[key];
    if (typeof value !== "string" || !/^https?:\/\//.test(value)) throw new Error(`discovery has no ${key}`);
    return value;
  };
  // §4.3: the document must be the issuer's own, or its keys vouch for someone else's tokens.
  if (doc.issuer !== issuer) throw new Error("discovery names another issuer");
  return {
    issuer,
    authorizationEndpoint: url("authorization_endpoint"),
    tokenEndpoint: url("token_endpoint"),
    jwksUri: url("jwks_uri"),
  };
}

/**
 * RFC 9207: a provider that names itself in its answer (`iss`) must be the one this sign-in went
 * to, so an answer from another provider cannot be passed off as this one's.
 */
export function ensureIssuer(meta: ProviderMetadata, presented: unknown): void {
  if (meta.issuer !== null && presented !== undefined && presented !== meta.issuer)
    throw new AppError("bridge_not_confirmed");
}

/** RFC 7636 S256: the challenge sent with the browser, for the verifier only we hold. */
export function codeChallenge(verifier: string): string {
  return createHash("sha256").update(verifier, "ascii").digest("base64url");
}

export function authorizationUrl(
  meta: ProviderMetadata,
  provider: FederatedProvider,
  input: { redirectUri: string; state: string; nonce: string; codeVerifier: string },
): string {
  const url = new URL(meta.authorizationEndpoint);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", provider.clientId);
  url.searchParams.set("redirect_uri", input.redirectUri);
  if (provider.scope !== "") url.searchParams.set("scope", provider.scope);
  url.searchParams.set("state", input.state);
  if (meta.issuer !== null) url.searchParams.set("nonce", input.nonce);
  url.searchParams.set("code_challenge", codeChallenge(input.codeVerifier));
  url.searchParams.set("code_challenge_method", "S256");
  // The default (query) is left unsaid, as providers that know no other mode expect.
  if (provider.responseMode === "form_post") url.searchParams.set("response_mode", "form_post");
  return url.toString();
}

/** RFC 6749 §2.3.1: the client id and secret are form-encoded before they go into Basic. */
function basic(provider: FederatedProvider): string {
  const form = (s: string) => encodeURIComponent(s).replace(/%20/g, "+");
  return `Basic ${Buffer.from(`${form(provider.clientId)}:${form(provider.clientSecret)}`).toString("base64")}`;
}

/** Where a provider says it refuses our client, not the code: a configuration to fix. */
const CLIENT_REFUSED = new Set(["invalid_client", "unauthorized_client", "incorrect_client_credentials"]);

/**
 * The code, redeemed once at the provider: its ID token (OpenID Connect) or access token (OAuth
 * 2.0). A refusal by the provider is a sign-in it did not confirm.
 */
export async function redeemCode(
  fetch: Fetch,
  meta: ProviderMetadata,
  provider: FederatedProvider,
  input: { code: string; redirectUri: string; codeVerifier: string; signal: AbortSignal },
): Promise<{ idToken: string } | { accessToken: string }> {
  const res = await fetch(meta.tokenEndpoint, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      accept: "application/json",
      authorization: basic(provider),
    },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code: input.code,
      redirect_uri: input.redirectUri,
      code_verifier: input.codeVerifier,
    }).toString(),
    redirect: "error",
    signal: input.signal,
  });
  const body = (await res.json().catch(() => null)) as Record<string, unknown> | null;
  const error = typeof body?.error === "string" ? body.error : null;
  // Our own client refused is a configuration to fix (a 500, logged), not a person to turn away.
  if (res.status === 401 || (error !== null && CLIENT_REFUSED.has(error)))
    throw new Error(`the token endpoint refused our client (${res.status} ${error ?? ""})`);
  // Some providers answer a refused code with 200 and an error.
  if (res.status === 400 || (res.status === 200 && error !== null)) throw new AppError("bridge_not_confirmed");
  if (res.status !== 200 || body === null) throw new Error(`the token endpoint answered ${res.status}`);
  if (meta.issuer === null) {
    if (typeof body.access_token !== "string" || body.access_token === "") throw new AppError("bridge_no_account_id");
    return { accessToken: body.access_token };
  }
  if (typeof body.id_token !== "string") throw new AppError("bridge_no_account_id");
  return { idToken: body.id_token };
}

/**
 * Signature, issuer, audience, lifetime and nonce, and an account id (`sub`) for the identity
 * provider to link: a token short of any of them is refused.
 */
export async function checkIdToken(
  fetch: Fetch,
  meta: ProviderMetadata,
  provider: FederatedProvider,
  idToken: string,
  input: { nonce: string; now: Date; timeoutMs: number },
): Promise<void> {
  const { issuer, jwksUri } = meta;
  if (issuer === null || jwksUri === null) throw new Error("an ID token needs an OpenID Connect provider");
  let keys = keySets.get(jwksUri);
  if (keys === undefined) {
    keys = createRemoteJWKSet(new URL(jwksUri), { timeoutDuration: input.timeoutMs, [customFetch]: fetch });
    keySets.set(jwksUri, keys);
  }
  let claims: Record<string, unknown>;
  try {
    ({ payload: claims } = await jwtVerify(idToken, keys, {
      issuer,
      audience: provider.clientId,
      algorithms: ["RS256", "ES256", "PS256"],
      currentDate: input.now,
      clockTolerance: 60,
    }));
  } catch (err) {
    // Keys that could not be fetched are the provider failing; anything else is a token we do not accept.
    if (err instanceof errors.JWKSTimeout || !(err instanceof errors.JOSEError)) throw err;
    throw new AppError("bridge_not_confirmed");
  }
  // The nonce ties the token to this browser's sign-in: a token issued for another one is refused.
  ensureNonce(claims.nonce, input.nonce);
  // OpenID Connect Core §3.1.3.7: a token for several audiences must have been issued to us.
  if (Array.isArray(claims.aud) && claims.aud.length > 1 && claims.azp !== provider.clientId)
    throw new AppError("bridge_not_confirmed");
  if (typeof claims.sub !== "string" || claims.sub === "" || claims.sub.length > 255)
    throw new AppError("bridge_no_account_id");
}

function ensureNonce(presented: unknown, expected: string): void {
  if (typeof presented !== "string" || !constantTimeEqual(presented, expected))
    throw new AppError("bridge_not_confirmed");
}
