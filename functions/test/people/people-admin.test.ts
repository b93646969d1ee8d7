/**
 * The rules of changing a person, asked of the core directly (no route, no session): whoever
 * calls changePerson gets them, so a new caller cannot leave one out.
 */
import { allTasksIdle } from "../support/task-queue";
import { MINUTE } from "../../src/clock";
import { AppError } from "../../src/core/errors";
import { personHistory } from "../../src/core/people/history";
import { changePerson } from "../../src/core/people/change-person";
import { NAME_MAX, STEP_UP_MS } from "../../src/core/people/acting";
import { renameSelf } from "../../src/core/account/own-data";
import * as people from "../../src/store/people";
import { testDeps, unique } from "../support/deps";
import { personFor } from "../support/people";
import { type Person } from "../../src/core/model/person";

const stranger = () => ({ uid: unique("uid"), email: `${unique("p")}@example.test` });

async function world() {
  const deps = testDeps();
  const admin = await personFor(stranger(), { role: "admin", projects: ["*"] }, deps.store);
  const person = await personFor(stranger(), { status: "pending", projects: ["status"] }, deps.store);
  const now = () => deps.clock.now();
  const signedInAgo = (ms: number) => ({
    admin,
    signedInAt: new Date(now().getTime() - ms),
    amr: ["hwk", "user"],
    from: "Firefox on Linux",
  });
  const stored = async () => (await people.findById(deps.store, person.id)) as Person;
  const entries = async () => (await personHistory(deps, person.id, 50, null)).entries;
  return { deps, admin, person, signedInAgo, stored, entries };
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (err: unknown) => (err instanceof AppError ? err.code : err),
  );

describe("changePerson", () => {
  // An approval queues the person's notice and wakes the drainer: let it finish inside the file.
  afterEach(() => allTasksIdle());

  it("refuses an administrator whose sign-in is older than the step-up window any change that widens access, and writes nothing", async () => {
    const w = await world();
    const stale = w.signedInAgo(STEP_UP_MS + 1);
    const before = await w.entries();
    for (const change of [
      { status: "approved" as const },
      { role: "admin" as const },
      { projects: ["status", "startpage"] },
      { groups: ["ops"] },
      { emails: [...w.person.emails, `${unique("extra")}@example.test`] },
      { phones: ["+15550100999"] },
    ])
      expect(await refusal(changePerson(w.deps, w.person.id, change, stale))).toBe("step_up_required");
    expect(await w.stored()).toMatchObject({ status: "pending", role: "user", projects: ["status"], groups: [] });
    expect(await w.entries()).toEqual(before);
  });

  it("keeps a name plain text whoever gives it, an administrator as the person themself", async () => {
    const w = await world();
    const typed = " Ann\u202e\u0000 <b>Lee</b>\n\t ";
    const byAdmin = await changePerson(w.deps, w.person.id, { name: typed }, w.signedInAgo(0));
    expect(byAdmin.person.name).toBe("Ann <b>Lee</b>");
    expect((await w.stored()).name).toBe("Ann <b>Lee</b>");
    const self = { self: w.admin, signedInAt: w.deps.clock.now() };
    expect(await renameSelf(w.deps, self, `${typed}!`)).toMatchObject({ name: "Ann <b>Lee</b> !" });
    const tooLong = { name: "x".repeat(NAME_MAX + 1) };
    expect(await refusal(changePerson(w.deps, w.person.id, tooLong, w.signedInAgo(0)))).toBe("invalid_person_change");
  });

  it("lets the same administrator narrow access without a fresh sign-in", async () => {
    const w = await world();
    const stale = w.signedInAgo(60 * MINUTE);
    const { person } = await changePerson(w.deps, w.person.id, { status: "rejected", projects: [] }, stale);
    expect(person).toMatchObject({ status: "rejected", projects: [] });
  });

  it("lets an administrator widen access within the window, to the millisecond", async () => {
    const w = await world();
    const { person } = await changePerson(w.deps, w.person.id, { status: "approved" }, w.signedInAgo(STEP_UP_MS));
    expect(person.status).toBe("approved");
    expect((await w.entries())[0]).toMatchObject({ by: { kind: "admin", personId: w.admin.id }, via: "api" });
  });

  it("asks no sign-in of an operator on the command line, and records them as such", async () => {
    const w = await world();
    const operator = { kind: "operator" as const, name: "ops@console" };
    const { person } = await changePerson(w.deps, w.person.id, { status: "approved", role: "admin" }, { operator });
    expect(person).toMatchObject({ status: "approved", role: "admin" });
    expect((await w.entries())[0]).toMatchObject({ by: operator, via: "cli" });
  });
});

describe("changePerson by the person themself", () => {
  it("lets a person rename themself without a fresh sign-in, and records it as their own change", async () => {
    const w = await world();
    const self = { self: w.person, signedInAt: new Date(w.deps.clock.now().getTime() - 60 * MINUTE) };
    const { person, providerSyncErrors } = await changePerson(w.deps, w.person.id, { name: "Grace" }, self);
    expect(person.name).toBe("Grace");
    expect(providerSyncErrors).toEqual([]);
    expect(await w.entries()).toEqual([
      expect.objectContaining({
        by: { kind: "person" },
        via: "account",
        event: "changed",
        changes: { name: { from: w.person.name, to: "Grace" } },
      }),
    ]);
  });

  it("refuses a person any change of their own but their name, and another person's name, and writes nothing", async () => {
    const w = await world();
    const self = { self: w.person, signedInAt: w.deps.clock.now() };
    for (const change of [
      { status: "approved" as const },
      { role: "admin" as const },
      { projects: ["status", "startpage"] },
      { projects: [] },
      { groups: ["ops"] },
      { emails: [...w.person.emails, `${unique("extra")}@example.test`] },
      { phones: ["+15550100999"] },
      { name: "Grace", role: "admin" as const },
    ])
      expect(await refusal(changePerson(w.deps, w.person.id, change, self))).toBe("forbidden");
    expect(await refusal(changePerson(w.deps, w.admin.id, { name: "Grace" }, self))).toBe("forbidden");
    expect(await w.stored()).toMatchObject({
      name: w.person.name,
      status: "pending",
      role: "user",
      projects: ["status"],
    });
    expect((await people.findById(w.deps.store, w.admin.id))?.name).toBe(w.admin.name);
    expect(await w.entries()).toEqual([]);
  });

  it("lets a person reorder and remove their own addresses, never the last, and add one only with its proof", async () => {
    const w = await world();
    const [first] = w.person.emails as [string];
    const second = `${unique("second")}@example.test`;
    const self = { self: w.person, signedInAt: w.deps.clock.now() };
    // Added by an administrator: the person then has two.
    await changePerson(w.deps, w.person.id, { emails: [first, second] }, w.signedInAgo(0));
    expect((await changePerson(w.deps, w.person.id, { emails: [second, first] }, self)).person.emails).toEqual([
      second,
      first,
    ]);
    expect((await changePerson(w.deps, w.person.id, { emails: [second] }, self)).person.emails).toEqual([second]);
    expect(await refusal(changePerson(w.deps, w.person.id, { emails: [] }, self))).toBe("last_address");
    const third = `${unique("third")}@example.test`;
    const proofOf = (emails: string[]) => ({ emails, check: async () => ({ refusal: null, record: () => {} }) });
    // A proof of one address adds that one, and no other.
    const other = `${unique("other")}@example.test`;
    expect(await refusal(changePerson(w.deps, w.person.id, { emails: [second, other] }, self, proofOf([third])))).toBe(
      "forbidden",
    );
    const added = await changePerson(w.deps, w.person.id, { emails: [second, third] }, self, proofOf([third]));
    expect(added.person.emails).toEqual([second, third]);
    // A proof that does not hold adds nothing, and says why.
    const refused = {
      emails: [other],
      check: async () => ({ refusal: "email_code_invalid" as const, record: () => {} }),
    };
    expect(await refusal(changePerson(w.deps, w.person.id, { emails: [second, third, other] }, self, refused))).toBe(
      "email_code_invalid",
    );
    expect((await w.stored()).emails).toEqual([second, third]);
  });
});
