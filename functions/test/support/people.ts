import type { Firestore } from "firebase-admin/firestore";
import type { Deps } from "../../src/deps";
import * as people from "../../src/store/people";
import * as sessionRecords from "../../src/store/sessions";
import { SESSION_LIFETIME_MS } from "../../src/core/sessions/sessions";
import { signedUp, type Account } from "./auth";
import { firestore, unique } from "./deps";
import { type NewPerson, type Person } from "../../src/core/model/person";

/** A person in the store, set up directly (tests of the people endpoints go through HTTP). */
export async function personFor(
  account: Pick<Account, "uid" | "email">,
  fields: Partial<NewPerson> = {},
  db: Firestore = firestore(),
  id: string = unique("p"),
): Promise<Person> {
  return db.runTransaction(async (tx) =>
    people.create(
      db,
      tx,
      {
        uids: [account.uid],
        emails: [account.email],
        phones: [],
        name: "Test Person",
        role: "user",
        projects: [],
        groups: [],
        status: "approved",
        ...fields,
      },
      id,
      // eslint-disable-next-line no-restricted-syntax -- set-up data, not behaviour under test
      new Date(),
    ),
  );
}

/** A signed-up account with a person of the given standing. */
export async function accountWithPerson(
  fields: Partial<NewPerson> = {},
  db?: Firestore,
): Promise<{ account: Account; person: Person }> {
  const account = await signedUp();
  const person = await personFor(account, fields, db);
  return { account, person };
}

/** A session cookie value, minted the way POST /auth/verify mints it. */
export async function sessionCookieFor(deps: Deps, uid: string, personId: string, amr: string[] = []): Promise<string> {
  const { token } = await deps.tokens.issue(
    { uid, personId, sessionId: deps.random.token(16), authTime: deps.clock.now(), amr },
    deps.clock.now(),
    14 * 24 * 3600 * 1000,
  );
  return `__session=${token}`;
}

/**
 * A session of the identity host as a sign-in opens it: its record in the store (which ending
 * sessions reads) and the browser's cookie.
 */
export async function recordedSession(
  deps: Deps,
  person: Pick<Person, "id" | "uids">,
): Promise<{ sessionId: string; cookie: string }> {
  const sessionId = unique("s");
  const now = deps.clock.now();
  const uid = person.uids[0] as string;
  const { token, expiresAt } = await deps.tokens.issue(
    { uid, personId: person.id, sessionId, authTime: now, amr: ["otp"] },
    now,
    SESSION_LIFETIME_MS,
  );
  await sessionRecords.record(deps.store, {
    sessionId,
    personId: person.id,
    uid,
    openedAt: now,
    authTime: now,
    amr: ["otp"],
    address: null,
    passkeyId: null,
    codesMadeAt: null,
    userAgent: "Firefox",
    lastSeenAt: now,
    expiresAt,
    endedAt: null,
  });
  return { sessionId, cookie: `__session=${token}` };
}

export function cookieFrom(setCookie: string[] | string | undefined): string | null {
  const list = Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : [];
  const match = list.map((c) => /^__session=([^;]*)/.exec(c)).find((m) => m !== null);
  return match?.[1] ? `__session=${match[1]}` : null;
}

/**
 * An approved member known to `deps`' person cache alone (nothing stored), and a session cookie
 * for them: for a test whose Firestore is a stand-in that answers nothing.
 */
export async function cachedMember(deps: Deps, name: string): Promise<{ person: Person; cookie: string }> {
  const person = {
    id: `p-${name}`,
    uids: [`uid-${name}`],
    emails: [`${name}@example.test`],
    phones: [],
    name: "",
    status: "approved",
    role: "user",
    projects: ["startpage"],
    groups: [],
  } as unknown as Person;
  deps.personCache.set(person.id, person);
  return { person, cookie: await sessionCookieFor(deps, `uid-${name}`, person.id) };
}
