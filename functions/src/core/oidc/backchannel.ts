/**
 * Back-channel logout (OpenID Connect Back-Channel Logout 1.0): when a sign-in of the identity
 * host ends, whatever ended it, each client the person signed in to from it is told, server to
 * server, with a logout token it verifies against the provider's keys.
 *
 * - A code redeemed from a session records the sign-in (`oidcSignIns/{sid}`), the `sid` its ID
 *   tokens carry: one per session and client (core/pepper `oidcSid`), so clients cannot match
 *   their sign-ins up by it.
 * - What ends a session queues, in its own transaction, a `backchannel-logout` outbox entry for
 *   each sign-in made from it, and forgets the sign-in: `POST /auth/logout` and RP-initiated
 *   logout (core/sessions endSession), "sign out everywhere else" and an administrator or operator
 *   ending sessions (endSessions), a person who is no longer approved (core/people changePerson),
 *   and an erasure (core/account/erasure), whose tokens carry the `sid` alone.
 * - The `mail` task posts each as the outbox runs its entries: `logout_token` (typ `logout+jwt`;
 *   `iss`, `aud`, `iat`, `exp` two minutes on, a fresh `jti`, the back-channel event, `sid` and
 *   `sub`; never a nonce) to the client's registered `backchannel_logout_uri`. A 2xx ends it;
 *   anything else is retried with the outbox's backoff for a day. A client with no URI is told
 *   nothing.
 */
import { postTo } from "../post-to";
import { SECOND } from "../../clock";
import * as clients from "../../store/oidc-clients";
import { usable } from "../model/oidc-client";
import * as signIns from "../../store/oidc-sign-ins";
import type { OidcCode } from "../../store/oidc-codes";
import type { Transaction } from "../../store/db";
import type { Deps } from "../deps";
import { changeWhileClaimed, DELIVERED, NotDelivered, type Handlers } from "../outbox/handlers";
import { logOutbox } from "../outbox/log";
import { oidcSid, pepperRing, type PepperKey } from "../pepper";
import { SESSION_LIFETIME_MS } from "../sessions/sessions";

/** The event a logout token carries (§2.4). */
export const BACKCHANNEL_EVENT = "http://schemas.openid.net/event/backchannel-logout";
/** How long a client has to answer one. */
export const BACKCHANNEL_TIMEOUT_MS = 5 * SECOND;
/** A logout token's own lifetime: long enough for the post, short enough that a copy is soon worthless. */
const LOGOUT_TOKEN_LIFETIME_S = 120;

/**
 * Records the sign-in a redemption makes from `sessionKey`, once per commit (`recorded`), and its
 * `sid`: kept until the session would have expired.
 */
export function recordSignIn(
  deps: Pick<Deps, "store" | "pepper">,
  tx: Transaction,
  code: Pick<OidcCode, "clientId" | "personId">,
  sessionKey: string,
  now: Date,
  recorded: Set<string>,
): string {
  const sid = oidcSid(pepperRing(deps)[0] as PepperKey, sessionKey, code.clientId);
  if (!recorded.has(sid)) {
    recorded.add(sid);
    signIns.record(
      deps.store,
      tx,
      { sid, sessionKey, clientId: code.clientId, personId: code.personId, createdAt: now },
      new Date(now.getTime() + SESSION_LIFETIME_MS),
    );
  }
  return sid;
}

type BackchannelDeps = Pick<Deps, "store" | "clock" | "random" | "tokens" | "config" | "fetch" | "log" | "transaction">;

/** Posts a logout token; null when the client took it (2xx), else the kind of failure. */
function post(deps: BackchannelDeps, uri: string, token: string): Promise<string | null> {
  const headers = { "content-type": "application/x-www-form-urlencoded" };
  const body = new URLSearchParams({ logout_token: token }).toString();
  return postTo(deps, uri, { headers, body }, BACKCHANNEL_TIMEOUT_MS);
}

export function backchannelHandlers(deps: BackchannelDeps): Pick<Handlers, "backchannel-logout"> {
  return {
    async "backchannel-logout"(entry, claim) {
      const logout = entry.logout;
      const client = await clients.findById(deps.store, entry.about);
      // A client gone, disabled or with no address since: nobody to tell.
      if (client === null || !usable(client) || client.backchannelLogoutUri === null) return null;
      const iat = Math.floor(deps.clock.now().getTime() / 1000);
      const token = await deps.tokens.signLogoutToken({
        iss: deps.config.serviceUrl,
        aud: client.clientId,
        iat,
        exp: iat + LOGOUT_TOKEN_LIFETIME_S,
        jti: deps.random.token(16),
        events: { [BACKCHANNEL_EVENT]: {} },
        sid: logout.sid,
        ...(logout.sub === null ? {} : { sub: logout.sub }),
      });
      const failure = await post(deps, client.backchannelLogoutUri, token);
      if (failure !== null) throw new NotDelivered(failure);
      await changeWhileClaimed(deps, entry.id, claim, { state: "sent", sentAt: deps.clock.now(), claim: null });
      logOutbox(deps.log, "logoutTokenDelivered", {
        outboxId: entry.id,
        client: client.clientId,
        attempt: entry.attempts,
      });
      return DELIVERED;
    },
  };
}
