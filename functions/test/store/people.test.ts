/** store/people on the emulator: lookups, dates to the millisecond, one holder per address or account. */
import * as people from "../../src/store/people";
import { firestore, unique } from "../support/deps";
import { type NewPerson, type Person } from "../../src/core/model/person";
import * as personKeys from "../../src/store/person-keys";

const db = firestore();
const at = new Date("2026-03-01T09:00:00.123Z");

function newPerson(overrides: Partial<NewPerson> = {}): NewPerson {
  const tag = unique();
  return {
    uids: [`uid-${tag}`],
    emails: [`${tag}@example.test`],
    phones: [],
    name: "Ada",
    role: "user",
    projects: [],
    groups: [],
    status: "pending",
    ...overrides,
  };
}

async function createPerson(input: NewPerson, id = unique("p")): Promise<Person> {
  return db.runTransaction(async (tx) => people.create(db, tx, input, id, at));
}

describe("store/people", () => {
  it("finds a person by id, uid, email and phone", async () => {
    const phone = `+1555${Math.floor(1000000 + (Number.parseInt(unique("").slice(0, 6), 36) % 8999999))}`;
    const created = await createPerson(newPerson({ phones: [phone] }));
    const uid = created.uids[0] as string;
    const email = created.emails[0] as string;
    for (const found of [
      await people.findById(db, created.id),
      await people.findByUid(db, uid),
      await people.findByEmail(db, email),
      await people.findByPhone(db, phone),
    ]) {
      expect(found).toEqual(created);
    }
  });

  it("returns null for what is not there", async () => {
    expect(await people.findById(db, unique("missing"))).toBeNull();
    expect(await people.findByUid(db, unique("missing"))).toBeNull();
    expect(await people.findByEmail(db, `${unique()}@nowhere.test`)).toBeNull();
    expect(await people.findByPhone(db, "+10000000000")).toBeNull();
  });

  it("round-trips dates to the millisecond", async () => {
    const created = await createPerson(newPerson());
    const found = await people.findById(db, created.id);
    expect(found?.createdAt.toISOString()).toBe(at.toISOString());
  });

  it("refuses a second person with an address another person holds, and stores nothing of it", async () => {
    const first = await createPerson(newPerson());
    const email = first.emails[0] as string;
    const secondId = unique("p");
    await expect(createPerson(newPerson({ emails: [email] }), secondId)).rejects.toThrow();
    expect(await people.findById(db, secondId)).toBeNull();
    expect((await people.findByEmail(db, email))?.id).toBe(first.id);
  });

  it("creates one person when 20 transactions race to create the same uid", async () => {
    const input = newPerson();
    const uid = input.uids[0] as string;
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, () =>
        db.runTransaction(async (tx) => {
          if (await personKeys.keyHolder(db, tx, "uid", uid)) return null;
          return people.create(db, tx, input, unique("p"), at);
        }),
      ),
    );
    const created = outcomes.filter((o) => o.status === "fulfilled" && o.value !== null);
    expect(created).toHaveLength(1);
    const stored = await db.collection("people").where("uids", "array-contains", uid).get();
    expect(stored.size).toBe(1);
  });

  it("moves key claims when a person's addresses change", async () => {
    const person = await createPerson(newPerson());
    const oldEmail = person.emails[0] as string;
    const newEmail = `${unique()}@example.test`;
    await db.runTransaction(async (tx) => {
      const before = await people.findById(db, person.id, tx);
      if (!before) throw new Error("gone");
      people.replace(db, tx, before, { ...before, emails: [newEmail] });
    });
    expect(await people.findByEmail(db, oldEmail)).toBeNull();
    expect((await people.findByEmail(db, newEmail))?.id).toBe(person.id);
    // The released address can be claimed by someone else now.
    await expect(createPerson(newPerson({ emails: [oldEmail] }))).resolves.toBeDefined();
  });
});
