/**
 * The harness's own firebase-admin, on the same emulators as the service: it creates the fixture,
 * issues exchange codes (their issuance has no endpoint) and reads the stored state the
 * invariants are checked against. Keys and hashes come from the compiled service code, so the
 * harness finds a record exactly where the service put it.
 */
import { createHash } from "node:crypto";
import { requireFromFunctions, service } from "../lib/functions.ts";

type Doc = Record<string, any>;
let app: any;

let apps = 0;

/** Points firebase-admin at the emulators; call before any other function here, and again for another run's. */
export function connect(project: string, firestoreHost: string, authHost: string): void {
  process.env.GCLOUD_PROJECT = project;
  process.env.FIRESTORE_EMULATOR_HOST = firestoreHost;
  process.env.FIREBASE_AUTH_EMULATOR_HOST = authHost;
  process.env.METADATA_SERVER_DETECTION = "none";
  const { initializeApp } = requireFromFunctions("firebase-admin/app");
  app = initializeApp({ projectId: project }, `soak-${++apps}`);
}

/** Closes the harness's clients of a run's emulators, before they stop. */
export async function disconnect(): Promise<void> {
  const { deleteApp } = requireFromFunctions("firebase-admin/app");
  if (app) await within(10_000, deleteApp(app)).catch(() => undefined);
  app = undefined;
}

export function db(): any {
  return requireFromFunctions("firebase-admin/firestore").getFirestore(app);
}

export function auth(): any {
  return requireFromFunctions("firebase-admin/auth").getAuth(app);
}

/** Rejects after `ms`: a harness read must not hang the soak while Firestore is frozen. */
export function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

const { issueExchangeCode: issue } = service<any>("core/sessions/exchange-codes");
const { systemClock } = service<any>("clock");
const { cryptoRandom } = service<any>("random");
const people = service<any>("store/people");
const { registerClient } = service<any>("core/oidc/clients");

/** The relying party the soak signs people in to through the OIDC provider. */
export const SOAK_CLIENT = {
  clientId: "soak-client",
  clientSecret: "soak-client-secret-0123456789abcdef",
  redirectUri: "https://app.example.test/callback",
};

/** The soak's app; `offline` registers it (under its id with `-offline`) for refresh tokens too. */
export function registerSoakClient(offline = false): Promise<void> {
  const { clientId, clientSecret, redirectUri } = SOAK_CLIENT;
  return registerClient(
    { store: db(), clock: systemClock },
    {
      clientId: offline ? `${clientId}-offline` : clientId,
      clientSecret,
      name: "Soak app",
      redirectUris: [redirectUri],
      ...(offline ? { grantTypes: ["authorization_code", "refresh_token"] } : {}),
    },
  );
}

export function issueExchangeCode(personId: string, uid: string): Promise<string> {
  return issue({ store: db(), clock: systemClock, random: cryptoRandom }, personId, uid);
}

async function read(path: string): Promise<Doc | null> {
  const snap = await db().doc(path).get();
  return snap.exists ? (snap.data() as Doc) : null;
}

export function exchangeCodeDoc(code: string): Promise<Doc | null> {
  return read(`exchangeCodes/${createHash("sha256").update(code, "utf8").digest("hex")}`);
}

export interface NewPerson {
  personId: string;
  uid: string;
  email: string;
  status: "approved" | "pending" | "rejected";
  projects: string[];
  role?: "user" | "admin";
}

/** Creates people and their key claims with the service's own store code, a batch at a time. */
export async function createPeople(list: NewPerson[]): Promise<void> {
  const store = db();
  for (let i = 0; i < list.length; i += 100) {
    const batch = store.batch();
    for (const p of list.slice(i, i + 100)) {
      const fields = {
        uids: [p.uid],
        emails: [p.email],
        phones: [],
        name: "Soak Person",
        role: p.role ?? "user",
        projects: p.projects,
        groups: [],
        status: p.status,
      };
      // A WriteBatch has the create() that store/people calls on a transaction.
      people.create(store, batch, fields, p.personId, systemClock.now());
    }
    await batch.commit();
  }
}

/** Those of `list` whose person record is not stored. */
export async function missing<T extends NewPerson>(list: T[]): Promise<T[]> {
  const store = db();
  const snaps = list.length === 0 ? [] : await store.getAll(...list.map((p) => store.doc(`people/${p.personId}`)));
  return list.filter((_, i) => !snaps[i]?.exists);
}

const keyId = (kind: string, value: string) => `personKeys/${kind}:${encodeURIComponent(value)}`;

/**
 * Removes any other person holding the uid or address of one of `list`, with all their key
 * claims; returns what was removed. Used only when re-seeding an emptied store.
 */
export async function removeOtherHolders(list: NewPerson[]): Promise<string[]> {
  const store = db();
  const wanted = new Map(
    list.flatMap((p) => [
      [keyId("uid", p.uid), p.personId],
      [keyId("email", p.email), p.personId],
    ]),
  );
  const keys = await store.getAll(...[...wanted.keys()].map((path) => store.doc(path)));
  const others = new Set<string>(
    keys
      .filter((k: any) => k.exists && k.get("personId") !== wanted.get(k.ref.path))
      .map((k: any) => String(k.get("personId"))),
  );
  const removed: string[] = [];
  for (const personId of others) {
    const snap = await store.doc(`people/${personId}`).get();
    const d = (snap.data() ?? {}) as Doc;
    const claims = [
      ...(d.uids ?? []).map((v: string) => keyId("uid", v)),
      ...(d.emails ?? []).map((v: string) => keyId("email", v)),
      ...(d.phones ?? []).map((v: string) => keyId("phone", v)),
    ];
    const batch = store.batch();
    batch.delete(snap.ref);
    for (const path of claims) batch.delete(store.doc(path));
    await batch.commit();
    removed.push(`${d.status ?? "?"} person for ${[...(d.uids ?? []), ...(d.emails ?? [])].join(" ")}`);
  }
  return removed;
}

export async function all(collection: string): Promise<Array<{ id: string; data: Doc }>> {
  const snap = await db().collection(collection).get();
  return snap.docs.map((d: any) => ({ id: d.id, data: d.data() as Doc }));
}
