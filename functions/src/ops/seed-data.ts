/**
 * What the local seed (emulator-data/seed.json) puts in the emulators: the administrator, with
 * an account and a person, the API keys and the relying parties. Idempotent. The stack loads it
 * at every start (seed.ts); the tests load it into each file's own Firestore project.
 */
import type { Auth } from "firebase-admin/auth";
import type { Firestore } from "firebase-admin/firestore";
import { systemClock } from "../clock";
import { registerApiKey } from "../core/startpage/api-keys";
import { registerClient } from "../core/oidc/clients";
import { cryptoRandom } from "../random";
import * as people from "../store/people";
import * as peopleList from "../store/people-list";
import { changesBetween, recordEvent } from "../core/people/history";

export interface Seed {
  admin: { email: string; password: string; name: string };
  apiKeys: Array<{ key: string; label: string }>;
  oidcClients: Array<{ clientId: string; clientSecret: string; name: string; redirectUris: string[] }>;
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

/**
 * Loads `seed`: the accounts into `auth`, everything else into `db` (the tests' own Firestore
 * projects sit beside the one Auth project the emulator signs clients into). The person's id.
 */
export async function loadSeed(db: Firestore, auth: Auth, seed: Seed): Promise<string> {
  // Data kept from an older version gets what lists and searches find people by.
  await peopleList.reindex(db);
  const personId = await seedAdmin(db, auth, seed);
  const deps = { store: db, clock: systemClock };
  for (const { key, label } of seed.apiKeys) await registerApiKey(deps, key, label);
  for (const client of seed.oidcClients) await registerClient(deps, client);
  return personId;
}
