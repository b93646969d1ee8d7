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
 * A request whose hint was issued from this very sign-in (its `sid`) ends it at once; any other asks
 * the person first, so that no page can sign someone out by a bare link, nor by an ID token of
 * theirs from another sign-in (an old one, another browser's, one that leaked).
 */
import { compactVerify, createLocalJWKSet } from "jose";
import type { Deps } from "../deps";
import { ensure } from "../errors";
import type { OidcClient } from "../model/oidc-client";
import { oidcSid, pepperRing } from "../pepper";
import { constantTimeEqual } from "../secrets";
import { findClient } from "./clients";

export interface LogoutParams {
  idTokenHint?: string;
  clientId?: string;
  postLogoutRedirectUri?: string;
  state?: string;
}

/** What an ID token given as a hint says: its person, its client, and the sign-in it came from. */
export interface IdTokenHint {
  sub: string;
  aud: string;
  /** The sign-in's `sid` (core/pepper `oidcSid`); null for a token issued from no session. */
  sid: string | null;
}

export interface LogoutRequest {
  client: OidcClient | null;
  /** The hint, when one was given. */
  hint: IdTokenHint | null;
  /** Where the browser goes once signed out, `state` added; null: the identity host's own page. */
  returnTo: string | null;
}

/** An ID token is a few hundred bytes; a hint past this is not one. */
const HINT_MAX = 8192;

/** The hint's person, client and sign-in, if it is an ID token of this provider's (expired or not); else null. */
export async function readIdTokenHint(
  deps: Pick<Deps, "tokens" | "config">,
  hint: string,
): Promise<IdTokenHint | null> {
  if (hint.length > HINT_MAX) return null;
  try {
    const { payload, protectedHeader } = await compactVerify(hint, createLocalJWKSet(deps.tokens.publicJwks()));
    // `typ: JWT` is the ID token's; a session token, signed by the same ring, says otherwise.
    if (protectedHeader.typ !== "JWT") return null;
    const claims = JSON.parse(new TextDecoder().decode(payload)) as Record<string, unknown>;
    if (claims.iss !== deps.config.serviceUrl || typeof claims.sub !== "string" || typeof claims.aud !== "string")
      return null;
    return { sub: claims.sub, aud: claims.aud, sid: typeof claims.sid === "string" ? claims.sid : null };
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
  if (p.postLogoutRedirectUri === undefined) return { client, hint, returnTo: null };
  ensure(client !== null, "oauth_invalid_request", "post_logout_redirect_uri needs client_id or id_token_hint");
  ensure(client.postLogoutRedirectUris.includes(p.postLogoutRedirectUri), "oidc_logout_uri_not_registered");
  const returnTo = new URL(p.postLogoutRedirectUri);
  if (p.state !== undefined) returnTo.searchParams.set("state", p.state);
  return { client, hint, returnTo: returnTo.toString() };
}

/**
 * Whether the hint was issued from the sign-in this browser holds: its `sid` is the one this
 * session has with the hint's client (under any key of the ring, so a token from before a
 * CODE_PEPPER rotation still counts). Only then is the hint the app's word that the person asked
 * to sign out here. An ID token from any other sign-in of theirs (an earlier session, another
 * browser's, another client's) was issued to someone who may hold it long after: a leaked or
 * stolen one must not end the sign-in, and with it every app's, without the person's yes.
 */
export function hintIsThisSignIn(
  deps: Pick<Deps, "pepper">,
  hint: IdTokenHint | null,
  signedIn: { personId: string; sessionKey: string | null },
): boolean {
  if (hint === null || hint.sid === null || signedIn.sessionKey === null || hint.sub !== signedIn.personId)
    return false;
  const { sid, aud } = hint;
  const sessionKey = signedIn.sessionKey;
  return pepperRing(deps).some((key) => constantTimeEqual(oidcSid(key, sessionKey, aud), sid));
}
