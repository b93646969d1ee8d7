/**
 * The apps a person let in through the OpenID Connect provider, as their account page lists them
 * (and an administrator's page of the person): each client they are signed in to from a live
 * session of the identity host, or that holds a grant to act while they are away, with when it was
 * first and last used. Disconnecting one ends all it holds (grants, access tokens, codes), tells
 * it, by back-channel logout, that each sign-in it was given has ended, and is remembered until the
 * person lets it in again (core/oidc/disconnects). An app that registered itself is listed from the
 * person's consent too (core/oidc/consents), and its disconnect takes that consent back.
 */
import * as clients from "../../store/oidc-clients";
import * as grants from "../../store/oidc-grants";
import * as codes from "../../store/oidc-codes";
import * as accessTokens from "../../store/oidc-tokens";
import * as signIns from "../../store/oidc-sign-ins";
import * as consents from "../../store/oidc-consents";
import { firstParty } from "../model/oidc-client";
import type { Deps } from "../deps";
import { ensure } from "../errors";
import { tellClients } from "../people/sign-in-ends";
import { endGrant } from "./grants";
import { rememberDisconnect } from "./disconnects";
import { recordEvent } from "../people/history";
import { ensureAdminActs, ensureOwnAccount, recordedAs, toldAs, type Acting } from "../people/acting";
import { appDisconnectedEvent, queueNotice, readRecipient } from "../notices/security-notices";

export interface AppView {
  clientId: string;
  /** The name the operator registered it under. */
  name: string;
  firstUsedAt: string;
  lastUsedAt: string;
  /** Whether it holds a grant: it may act for the person while they are away (a refresh token). */
  actsWhileAway: boolean;
  /** Whether it registered itself (RFC 7591) rather than being one of the operator's own: its name is its own claim. */
  unverified: boolean;
}

type AppsDeps = Pick<Deps, "store" | "clock">;

export async function appsOf(deps: AppsDeps, personId: string): Promise<AppView[]> {
  const now = deps.clock.now().getTime();
  const [held, signedIn, consented] = await Promise.all([
    grants.ofPerson(deps.store, personId),
    signIns.ofPerson(deps.store, personId),
    consents.ofPerson(deps.store, personId),
  ]);
  const live = held.filter((g) => g.endedAt === null && g.expiresAt.getTime() > now);
  const byClient = new Map<string, { first: number; last: number; away: boolean }>();
  const note = (clientId: string, first: Date, last: Date, away: boolean) => {
    const seen = byClient.get(clientId);
    byClient.set(clientId, {
      first: Math.min(seen?.first ?? Infinity, first.getTime()),
      last: Math.max(seen?.last ?? 0, last.getTime()),
      away: (seen?.away ?? false) || away,
    });
  };
  for (const g of live) note(g.clientId, g.createdAt, g.lastUsedAt, true);
  for (const s of signedIn) note(s.clientId, s.createdAt, s.createdAt, false);
  // An app the person let in (core/oidc/consents) is theirs to take back, whatever it holds now.
  for (const c of consented) note(c.clientId, c.givenAt, c.updatedAt, false);
  const named = await Promise.all(
    [...byClient.entries()].map(async ([clientId, used]) => {
      const client = await clients.findById(deps.store, clientId);
      // A client the operator removed or disabled lets nobody in any more. A blocked one is still
      // listed: what the person let it do would come back with its approval, so they may take it back.
      if (client === null || client.disabled || client.review === "waiting") return null;
      return {
        clientId,
        name: client.name,
        firstUsedAt: new Date(used.first).toISOString(),
        lastUsedAt: new Date(used.last).toISOString(),
        actsWhileAway: used.away,
        unverified: !firstParty(client),
      };
    }),
  );
  return named.filter((a): a is AppView => a !== null).sort((a, b) => b.lastUsedAt.localeCompare(a.lastUsedAt));
}

/**
 * Disconnects the app from the person, in one transaction: its grants end (their refresh tokens
 * and last access token with them), its other access tokens are revoked and the codes it has yet
 * to redeem are spent, each sign-in it was given is told ended, and the disconnect is remembered. Written to the
 * person's history; an administrator's or an operator's disconnect is told to the person (an
 * access notice). 404 when it holds nothing of theirs.
 */
export async function disconnectApp(
  deps: Pick<Deps, "store" | "clock" | "random" | "transaction" | "mailQueue" | "log" | "config">,
  personId: string,
  clientId: string,
  given: Acting,
): Promise<void> {
  ensureOwnAccount(given, personId);
  const client = await clients.findById(deps.store, clientId);
  const name = client?.name ?? clientId;
  await deps.transaction(async (tx) => {
    const by = await ensureAdminActs(deps, tx, given);
    const now = deps.clock.now();
    const held = (await grants.ofPerson(deps.store, personId, tx)).filter(
      (g) => g.clientId === clientId && g.endedAt === null,
    );
    const signedIn = (await signIns.ofSessions(deps.store, tx, personId, "all")).filter((s) => s.clientId === clientId);
    const consentsGiven = (await consents.ofPerson(deps.store, personId, tx)).filter((c) => c.clientId === clientId);
    ensure(held.length > 0 || signedIn.length > 0 || consentsGiven.length > 0, "app_not_found");
    // Someone else cut it off: the person is told, as of their sessions ended.
    const from = "self" in by ? null : toldAs(by);
    const recipient = from !== null && deps.config.notices.access ? await readRecipient(deps, tx, personId) : null;
    // What it holds beside its grants: access tokens of sign-ins without one, and codes it has yet to redeem.
    const ofGrants = new Set(held.map((g) => g.accessTokenHash));
    const tokens = (await accessTokens.ofPerson(deps.store, tx, personId)).filter(
      (t) => t.clientId === clientId && !ofGrants.has(t.hash),
    );
    const unredeemed = (await codes.unusedOf(deps.store, tx, personId)).filter((c) => c.clientId === clientId);
    for (const grant of held) endGrant(deps, tx, grant, now, "disconnected");
    for (const token of tokens) accessTokens.revoke(deps.store, tx, token.hash);
    for (const code of unredeemed) codes.remove(deps.store, tx, code.hash);
    // What the person let it do is taken back: it asks again, on the consent page.
    for (const c of consentsGiven) consents.remove(deps.store, tx, c);
    // Until the person lets it in again, it gets no code for them without asking (core/oidc/disconnects).
    rememberDisconnect(deps, tx, personId, clientId, now);
    recordEvent(deps, tx, {
      personId,
      ...recordedAs(by),
      event: "app-disconnected",
      changes: { apps: { from: [name], to: null } },
    });
    if (from !== null && recipient !== null) queueNotice(deps, tx, recipient, appDisconnectedEvent(name, from));
    tellClients(deps, tx, signedIn);
  });
}
