/**
 * What the local seed (emulator-data/seed.json) puts in the emulators: the administrator, with
 * an account and a person, the API keys, the relying parties and, on the dev stack alone, the
 * apps' subscriptions to its webhook inbox. Idempotent. The stack loads it at every start
 * (seed.ts); the tests load it into each file's own Firestore project, without subscriptions.
 */
import type { Auth } from "firebase-admin/auth";
import type { Firestore } from "firebase-admin/firestore";
import { systemClock } from "../clock";
import { addHook, findHook, removeHook, setHookEnabled, signingSecrets } from "../core/events/hooks";
import type { PepperKey } from "../core/pepper";
import { registerApiKey } from "../core/startpage/api-keys";
import { registerClient } from "../core/oidc/clients";
import { cryptoRandom } from "../random";
import { transactionRunner } from "../store/db";
import * as people from "../store/people";
import * as peopleList from "../store/people-list";
import { changesBetween, recordEvent } from "../core/people/history";

/** An app subscribed to the inbox at `path` there, signing with a fixed dev `secret` (`whsec_…`). */
export interface SeedHook {
  app: string;
  path: string;
  secret: string;
  /** Empty: every event. */
  events: string[];
}

export interface Seed {
  admin: { email: string; password: string; name: string };
  apiKeys: Array<{ key: string; label: string }>;
  oidcClients: Array<{
    clientId: string;
    clientSecret: string;
    name: string;
    redirectUris: string[];
    postLogoutRedirectUris?: string[];
  }>;
  hooks?: SeedHook[];
}

/** The dev stack's webhook inbox (tools/hook-inbox.ts), and the pepper its subscriptions' secrets are sealed under. */
export interface HookInbox {
  url: string;
  pepper: PepperKey[];
}

async function seedAdmin(db: Firestore, auth: Auth, seed: Seed): Promise<string> {
  const { email, password, name } = seed.admin;
  const user = await auth
    .getUserByEmail(email)
    .catch(() => auth.createUser({ email, password, displayName: name, emailVerified: true }));
  await auth.updateUser(user.uid, { password, emailVerified: true, disabled: false });
  const deps = { store: db, clock: systemClock, random: cryptoRandom };
  const by = { by: { kind: "service" as const }, via: "seed" as const };
  return db.runTransaction(async (tx) => {
    const existing = await people.findByEmail(db, email, tx);
    const fields = { name, role: "admin" as const, projects: ["*"], status: "approved" as const };
    if (existing) {
      const uids = existing.uids.includes(user.uid) ? existing.uids : [...existing.uids, user.uid];
      const next = { ...existing, ...fields, uids, updatedAt: systemClock.now() };
      people.replace(db, tx, existing, next);
      recordEvent(deps, tx, {
        personId: existing.id,
        ...by,
        event: "changed",
        changes: changesBetween(existing, next),
      });
      return existing.id;
    }
    const person = people.create(
      db,
      tx,
      { ...fields, uids: [user.uid], emails: [email], phones: [], groups: [] },
      cryptoRandom.id(),
      systemClock.now(),
    );
    recordEvent(deps, tx, { personId: person.id, ...by, event: "created", changes: changesBetween(null, person) });
    return person.id;
  });
}

const sameTypes = (a: string[], b: string[]) => [...new Set(a)].sort().join() === [...new Set(b)].sort().join();

/**
 * Subscribes each seed app at its path under `inbox.url`. The data kept from the last run may hold
 * its subscription already: one at that address, for those events, signing with that secret is
 * kept, its health afresh (the inbox has just started); any other (the inbox on another port, a
 * secret sealed under a pepper since replaced) is replaced. Never a second: the app names it.
 */
async function seedHooks(db: Firestore, hooks: SeedHook[], inbox: HookInbox): Promise<void> {
  const deps = {
    store: db,
    clock: systemClock,
    random: cryptoRandom,
    pepper: inbox.pepper,
    transaction: transactionRunner(db),
    // Its address is http on loopback, which is taken on the emulators alone: the seed runs on nothing else (seed.ts).
    config: { loopbackHooks: true },
  };
  for (const { app, path, secret, events } of hooks) {
    const url = new URL(path, inbox.url).toString();
    const existing = await findHook(deps, app);
    const kept =
      existing !== null &&
      existing.url === url &&
      sameTypes(existing.events, events) &&
      signingSecrets(deps, existing, systemClock.now()).includes(secret);
    if (kept) {
      await setHookEnabled(deps, app, true);
      continue;
    }
    if (existing !== null) await removeHook(deps, app);
    await addHook(deps, { app, url, events, secret });
  }
}

/**
 * Loads `seed`: the accounts into `auth`, everything else into `db` (the tests' own Firestore
 * projects sit beside the one Auth project the emulator signs clients into). Its subscriptions
 * only when given the `inbox` they go to (the dev stack's; a test project's would queue a
 * delivery for every test's event). The person's id.
 */
export async function loadSeed(db: Firestore, auth: Auth, seed: Seed, inbox?: HookInbox): Promise<string> {
  // Data kept from an older version gets what lists and searches find people by.
  await peopleList.reindex(db);
  const personId = await seedAdmin(db, auth, seed);
  const deps = { store: db, clock: systemClock };
  for (const { key, label } of seed.apiKeys) await registerApiKey(deps, key, label);
  for (const client of seed.oidcClients) await registerClient(deps, client);
  if (inbox !== undefined) await seedHooks(db, seed.hooks ?? [], inbox);
  return personId;
}
