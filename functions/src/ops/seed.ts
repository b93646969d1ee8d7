/**
 * Loads the local seed data (emulator-data/seed.json) into the running emulators. Idempotent:
 * run it on every start. Only for emulators: it refuses to run without emulator hosts.
 */
import { readFileSync } from "node:fs";
import { initializeApp } from "firebase-admin/app";
import { getAuth } from "firebase-admin/auth";
import { getFirestore } from "firebase-admin/firestore";
import { systemClock } from "../clock";
import { registerApiKey } from "../core/startpage/api-keys";
import { registerClient } from "../core/oidc/clients";
import { cryptoRandom } from "../random";
import * as people from "../store/people";
import * as peopleList from "../store/people-list";
import { changesBetween, recordEvent } from "../core/people/history";
import { errorText } from "../logger";

interface Seed {
  admin: { email: string; password: string; name: string };
  apiKeys: Array<{ key: string; label: string }>;
  oidcClients: Array<{ clientId: string; clientSecret: string; name: string; redirectUris: string[] }>;
}

async function seedAdmin(seed: Seed): Promise<string> {
  const auth = getAuth();
  const db = getFirestore();
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

async function main(): Promise<void> {
  if (!process.env.FIRESTORE_EMULATOR_HOST || !process.env.FIREBASE_AUTH_EMULATOR_HOST) {
    throw new Error(
      "seed runs against the emulators only: FIRESTORE_EMULATOR_HOST and FIREBASE_AUTH_EMULATOR_HOST must be set",
    );
  }
  const path = process.argv[2];
  if (!path) throw new Error("usage: node lib/ops/seed.js <seed.json>");
  const seed = JSON.parse(readFileSync(path, "utf8")) as Seed;
  initializeApp({ projectId: process.env.GCLOUD_PROJECT });
  // Data kept from an older version gets what lists and searches find people by.
  await peopleList.reindex(getFirestore());
  const personId = await seedAdmin(seed);
  const deps = { store: getFirestore(), clock: systemClock };
  for (const { key, label } of seed.apiKeys) await registerApiKey(deps, key, label);
  for (const client of seed.oidcClients) await registerClient(deps, client);
  console.log(
    `seed: admin ${seed.admin.email} (person ${personId}), ${seed.apiKeys.length} API key(s), ${seed.oidcClients.length} OIDC client(s)`,
  );
}

main().catch((err: unknown) => {
  console.error(`seed failed: ${errorText(err)}`);
  process.exit(1);
});
