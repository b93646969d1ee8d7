/**
 * A disconnect that lasts. Disconnecting an app (core/oidc/apps) ends what it holds, and is
 * remembered (`oidcDisconnects`) until the person lets the app in again: until then the authorise
 * endpoint gives it no code for them without asking, even where a session would otherwise let the
 * person through at once (a silent authorise, `prompt=none` included). The question is a page on
 * the identity host, "Let <app> sign you in again?", whose form carries a confirmation bound to the
 * browser's session and the app (core/pepper `reconnectConfirmation`): only the person's press
 * there lets the app in again, and forgets the disconnect.
 */
import type { Transaction } from "../../store/db";
import * as disconnects from "../../store/oidc-disconnects";
import type { Deps } from "../deps";
import { pepperRing, reconnectConfirmation, reconnectConfirmed, type PepperKey } from "../pepper";

/** Remembers, in the disconnect's transaction, that the app was let go. */
export function rememberDisconnect(
  deps: Pick<Deps, "store">,
  tx: Transaction,
  personId: string,
  clientId: string,
  now: Date,
): void {
  disconnects.record(deps.store, tx, { personId, clientId, disconnectedAt: now });
}

/**
 * What the authorise step does about a disconnect, for a person the session would let through:
 * - `none`: the app was never disconnected, or was let in again: a code as usual.
 * - `reconnected`: this request is the person's press on the page (a POST with its confirmation);
 *   the disconnect is forgotten, and a code follows.
 * - `ask`: the page, with the confirmation its form carries (`confirmation`).
 */
export type ReconnectStep = { kind: "none" } | { kind: "reconnected" } | { kind: "ask"; confirmation: string };

export async function reconnectStep(
  deps: Pick<Deps, "store" | "pepper">,
  signedIn: { personId: string; sessionKey: string },
  clientId: string,
  presented: string | null,
): Promise<ReconnectStep> {
  const held = await disconnects.find(deps.store, signedIn.personId, clientId);
  if (held === null) return { kind: "none" };
  const ring = pepperRing(deps);
  if (presented !== null && reconnectConfirmed(ring, signedIn.sessionKey, clientId, presented)) {
    await disconnects.forget(deps.store, signedIn.personId, clientId);
    return { kind: "reconnected" };
  }
  return { kind: "ask", confirmation: reconnectConfirmation(ring[0] as PepperKey, signedIn.sessionKey, clientId) };
}
