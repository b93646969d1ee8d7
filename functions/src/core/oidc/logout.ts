/**
 * RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0): a relying party sends the browser
 * to the provider's `end_session_endpoint` to end the person's sign-in there, and names where to
 * come back to. What the request may ask is decided here; the route ends the session and answers.
 *
 * - `id_token_hint`: an ID token this provider issued (its signature and issuer checked; an expired
 *   one is still a hint, as the spec asks); it names the client and the person.
 * - `client_id`: the client, when there is no hint; with one, it must be the hint's audience.
 * - `post_logout_redirect_uri`: one the client registered, matched exactly; never any other, and
 *   none without a client named. `state` goes back with it.
 *
 * A request that only a valid hint for the signed-in person backs ends the sign-in at once; any
 * other asks the person first, so that no page can sign someone out by a bare link.
 */
import { compactVerify, createLocalJWKSet } from "jose";
import type { Deps } from "../deps";
import { ensure } from "../errors";
import type { OidcClient } from "../model/oidc-client";
import { findClient } from "./clients";

export interface LogoutParams {
  idTokenHint?: string;
  clientId?: string;
  postLogoutRedirectUri?: string;
  state?: string;
}

export interface LogoutRequest {
  client: OidcClient | null;
  /** The person the hint was issued for (its `sub`); null without a hint. */
  hintedPerson: string | null;
  /** Where the browser goes once signed out, `state` added; null: the identity host's own page. */
  returnTo: string | null;
}

/** An ID token is a few hundred bytes; a hint past this is not one. */
const HINT_MAX = 8192;

/** The hint's person and client, if it is an ID token of this provider's (expired or not); else null. */
export async function readIdTokenHint(
  deps: Pick<Deps, "tokens" | "config">,
  hint: string,
): Promise<{ sub: string; aud: string } | null> {
  if (hint.length > HINT_MAX) return null;
  try {
    const { payload, protectedHeader } = await compactVerify(hint, createLocalJWKSet(deps.tokens.publicJwks()));
    // `typ: JWT` is the ID token's; a session token, signed by the same ring, says otherwise.
    if (protectedHeader.typ !== "JWT") return null;
    const claims = JSON.parse(new TextDecoder().decode(payload)) as Record<string, unknown>;
    if (claims.iss !== deps.config.serviceUrl || typeof claims.sub !== "string" || typeof claims.aud !== "string")
      return null;
    return { sub: claims.sub, aud: claims.aud };
  } catch {
    return null;
  }
}

export async function checkLogoutRequest(
  deps: Pick<Deps, "tokens" | "config" | "store" | "clients">,
  p: LogoutParams,
): Promise<LogoutRequest> {
  const hint = p.idTokenHint === undefined ? null : await readIdTokenHint(deps, p.idTokenHint);
  ensure(p.idTokenHint === undefined || hint !== null, "oidc_logout_invalid_hint");
  ensure(
    p.clientId === undefined || hint === null || hint.aud === p.clientId,
    "oauth_invalid_request",
    "client_id is not the audience of id_token_hint",
  );
  const clientId = p.clientId ?? hint?.aud;
  const client = clientId === undefined ? null : await findClient(deps, clientId);
  ensure(clientId === undefined || client !== null, "oauth_unknown_client");
  if (p.postLogoutRedirectUri === undefined) return { client, hintedPerson: hint?.sub ?? null, returnTo: null };
  ensure(client !== null, "oauth_invalid_request", "post_logout_redirect_uri needs client_id or id_token_hint");
  ensure(client.postLogoutRedirectUris.includes(p.postLogoutRedirectUri), "oidc_logout_uri_not_registered");
  const returnTo = new URL(p.postLogoutRedirectUri);
  if (p.state !== undefined) returnTo.searchParams.set("state", p.state);
  return { client, hintedPerson: hint?.sub ?? null, returnTo: returnTo.toString() };
}
