/**
 * A person's consent to an app that registered itself (RFC 7591). The operator's own clients are
 * the family's: their registration stands for consent, and they are never asked about. Any other
 * client gets no code until the person, signed in, has said yes on a page of the identity host
 * that names the app (as unverified), the account, the site it wants a token for, and what it may
 * do. The yes is remembered for that app, resource and scope set (`oidcConsents`): a later request
 * within it goes through without a page, unless the app asks again (`prompt=consent`); one that
 * asks for more, or for another resource, asks again. The page's form carries a confirmation bound
 * to the browser's session, the app, the resource and the scopes (core/pepper): a form made for
 * another browser or request, or forged by another page, lets nothing in. A public client (one with
 * no secret) is asked every time, since anyone on the device may use its id (RFC 8252 §8.6); its
 * yes is still remembered, for the person's list of apps. Disconnecting the app
 * (core/oidc/apps) takes back every consent it was given.
 */
import type { Transaction } from "../../store/db";
import * as consents from "../../store/oidc-consents";
import * as disconnects from "../../store/oidc-disconnects";
import { recordEvent } from "../people/history";
import type { Deps } from "../deps";
import { consentConfirmation, consentConfirmed, pepperRing, type PepperKey } from "../pepper";
import { firstParty, type OidcClient } from "../model/oidc-client";
import type { Resource } from "../model/resource";
import { STEP_UP_MS } from "../model/step-up";
import { OFFLINE_ACCESS } from "./scopes";

/** What the person is asked to let the app do, and about which resource ("" for the provider's own tokens). */
export interface Asked {
  clientId: string;
  resource: string;
  scopes: readonly string[];
}

export const askedOf = (request: {
  client: OidcClient;
  resource: Resource | null;
  scopes: readonly string[];
}): Asked => ({
  clientId: request.client.clientId,
  resource: request.resource?.url ?? "",
  scopes: request.scopes,
});

/**
 * What the authorise step does about consent, for a person the session would let through:
 * - `none`: the app is the operator's, or the person already let it do all this: a code as usual.
 * - `given`: this request is the person's yes on the page (a POST with its confirmation); it is
 *   remembered, and a code follows.
 * - `refused`: the person's no on the page: the app hears `access_denied`, and nothing is remembered.
 * - `ask`: the page, with the confirmation its form carries (`confirmation`).
 * - `step-up`: the request asks for a scope SENSITIVE_SCOPES names, not let in before, and the
 *   person signed in more than STEP_UP_MS ago: they sign in afresh before the page is shown, or
 *   their yes is taken.
 */
export type ConsentStep =
  | { kind: "none" }
  | { kind: "given" }
  | { kind: "refused" }
  | { kind: "ask"; confirmation: string }
  | { kind: "step-up" };

/** Scopes a yes to which is asked only of a recent sign-in: acting for the person while they are away. */
export const SENSITIVE_SCOPES: readonly string[] = [OFFLINE_ACCESS];

/** The person's answer on the page, as the form posted it: the confirmation, and which button. */
export interface ConsentAnswer {
  confirmation: string;
  allow: boolean;
}

export async function consentStep(
  deps: Pick<Deps, "store" | "pepper" | "clock" | "transaction" | "random" | "log">,
  signedIn: { personId: string; sessionKey: string; authTime: Date },
  request: { client: OidcClient; resource: Resource | null; scopes: readonly string[]; askAgain: boolean },
  answer: ConsentAnswer | null,
): Promise<ConsentStep> {
  if (firstParty(request.client)) return { kind: "none" };
  const asked = askedOf(request);
  const ring = pepperRing(deps);
  const confirmed = answer !== null && consentConfirmed(ring, signedIn.sessionKey, asked, answer.confirmation);
  // Where the operator reads who let which app in, and who would not: ids and scopes only.
  const said = (message: string) =>
    deps.log.info(message, {
      clientId: asked.clientId,
      personId: signedIn.personId,
      resource: asked.resource === "" ? null : asked.resource,
      scopes: asked.scopes,
    });
  if (confirmed && !answer.allow) {
    said("app refused by person");
    return { kind: "refused" };
  }
  const held = await consents.find(deps.store, signedIn.personId, asked.clientId, asked.resource);
  const heldScopes = held?.scopes ?? [];
  // Only a yes the person gave lets a request by without the page: never an empty request alone,
  // and never a public client's (no secret), whose id anyone on the device may use (RFC 8252 §8.6).
  const remembered = held !== null && request.client.tokenAuth !== "none";
  if (!confirmed && !request.askAgain && remembered && asked.scopes.every((s) => heldScopes.includes(s)))
    return { kind: "none" };
  const sensitive = asked.scopes.some((s) => SENSITIVE_SCOPES.includes(s) && !heldScopes.includes(s));
  if (sensitive && deps.clock.now().getTime() - signedIn.authTime.getTime() > STEP_UP_MS) return { kind: "step-up" };
  if (confirmed) {
    await deps.transaction((tx) => remember(deps, tx, signedIn.personId, { ...asked, name: request.client.name }));
    said("app let in by person");
    return { kind: "given" };
  }
  return { kind: "ask", confirmation: consentConfirmation(ring[0] as PepperKey, signedIn.sessionKey, asked) };
}

/**
 * Remembers the yes, in `tx`, beside what the person let the app do before for that resource; a
 * disconnect of the app is forgotten with it (the page was the question it waited for).
 */
async function remember(
  deps: Pick<Deps, "store" | "clock" | "random">,
  tx: Transaction,
  personId: string,
  asked: Asked & { name: string },
) {
  const held = await consents.find(deps.store, personId, asked.clientId, asked.resource, tx);
  const now = deps.clock.now();
  // Written to the person's history, as a disconnect is: what they let in, and when.
  recordEvent(deps, tx, {
    personId,
    by: { kind: "person" },
    via: "sign-in",
    event: "app-let-in",
    changes: {
      apps: { from: null, to: [asked.name] },
      scopes: { from: held?.scopes ?? null, to: [...asked.scopes] },
      ...(asked.resource === "" ? {} : { resource: { from: null, to: asked.resource } }),
    },
  });
  consents.record(deps.store, tx, {
    personId,
    clientId: asked.clientId,
    resource: asked.resource,
    scopes: [...new Set([...(held?.scopes ?? []), ...asked.scopes])].sort(),
    givenAt: held?.givenAt ?? now,
    updatedAt: now,
  });
  disconnects.forgetIn(deps.store, tx, personId, asked.clientId);
}
