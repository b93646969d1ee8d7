/**
 * The passkey rule inside each privileged action, asked of the core directly (no route, no gate):
 * an administrator whose session began with an email code is refused every action that changes
 * anyone (`passkey_required`) and nothing is written; a step-up for one is a passkey's, never a
 * fresh email code's; the operator's lift of the rule for one person lets their acts through,
 * recorded as made under it, and ends to the second.
 */
import { MINUTE } from "../../src/clock";
import { AppError } from "../../src/core/errors";
import { changePerson, reviewMany } from "../../src/core/people/change-person";
import { erasePerson } from "../../src/core/account/erasure";
import { exportPersonData } from "../../src/core/account/own-data";
import { endSessions } from "../../src/core/sessions/active-sessions";
import { removeAllPasskeys } from "../../src/core/passkeys/passkeys";
import { invite, revokeInvitation } from "../../src/core/invitations/invitations";
import { inviteMany } from "../../src/core/invitations/invite-many";
import { personHistory } from "../../src/core/people/history";
import { STEP_UP_MS, type AdminActing } from "../../src/core/people/acting";
import * as people from "../../src/store/people";
import * as invitations from "../../src/store/invitations";
import * as signInRules from "../../src/store/sign-in-rules";
import { testConfig, testDeps, unique } from "../support/deps";
import { personFor } from "../support/people";
import { allTasksIdle } from "../support/task-queue";
import type { Person } from "../../src/core/model/person";

const deps = testDeps({ config: testConfig({ passkeyRoles: ["admin"] }) });
const stranger = () => ({ uid: unique("uid"), email: `${unique("p")}@example.test` });
const now = () => deps.clock.now();

async function world() {
  const admin = await personFor(stranger(), { role: "admin", projects: ["*"] }, deps.store);
  const person = await personFor(stranger(), { status: "pending", projects: ["status"] }, deps.store);
  const acting = (amr: string[], ago = 0): AdminActing => ({
    admin,
    signedInAt: new Date(now().getTime() - ago),
    amr,
    from: "Firefox on Linux",
  });
  const stored = async () => (await people.findById(deps.store, person.id)) as Person;
  const entries = async () => (await personHistory(deps, person.id, 50, null)).entries;
  return { admin, person, acting, stored, entries };
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (err: unknown) => (err instanceof AppError ? err.code : err),
  );

async function lift(personId: string, minutes: number) {
  await deps.transaction(async (tx) =>
    signInRules.setLift(deps.store, tx, personId, {
      until: new Date(now().getTime() + minutes * MINUTE),
      at: now(),
      by: "test operator",
    }),
  );
}

afterEach(() => allTasksIdle());

describe("an administrator signed in by email code, under the passkey rule", () => {
  it("is refused every privileged action with passkey_required, and nothing is written", async () => {
    const w = await world();
    const code = w.acting(["otp"]);
    const before = await w.entries();
    const address = `${unique("inv")}@example.test`;
    const terms = { address, name: "", projects: [], groups: [], role: "user" as const, note: "" };
    const actions: Array<[string, Promise<unknown>]> = [
      ["approve", changePerson(deps, w.person.id, { status: "approved" }, code)],
      ["reject", changePerson(deps, w.person.id, { status: "rejected" }, code)],
      ["add an address", changePerson(deps, w.person.id, { emails: [...w.person.emails, address] }, code)],
      ["rename", changePerson(deps, w.person.id, { name: "Renamed" }, code)],
      ["make administrator", changePerson(deps, w.person.id, { role: "admin" }, code)],
      ["erase", erasePerson(deps, w.person.id, code)],
      ["export", exportPersonData(deps, w.person.id, code)],
      ["end sessions", endSessions(deps, w.person.id, { allBut: null }, code)],
      ["remove passkeys", removeAllPasskeys(deps, w.person.id, code)],
      ["invite", invite(deps, terms, code)],
      ["invite a file", inviteMany(deps, [{ line: 2, terms }], code, { dryRun: false })],
    ];
    for (const [name, action] of actions)
      expect({ name, refused: await refusal(action) }).toEqual({ name, refused: "passkey_required" });
    const review = await reviewMany(deps, [w.person.id], "approved", code);
    expect(review[0]).toMatchObject({ error: "passkey_required" });
    expect(await w.stored()).toMatchObject({ status: "pending", name: "Test Person", role: "user" });
    expect(await w.entries()).toEqual(before);
    expect(await invitations.findByAddress(deps.store, address)).toBeNull();
  });

  it("is refused revoking an invitation, which stays", async () => {
    const w = await world();
    const address = `${unique("inv")}@example.test`;
    const terms = { address, name: "", projects: [], groups: [], role: "user" as const, note: "" };
    const made = await invite(deps, terms, w.acting(["hwk", "user"]));
    expect(await refusal(revokeInvitation(deps, made.id, w.acting(["otp"])))).toBe("passkey_required");
    expect(await invitations.findByAddress(deps.store, address)).not.toBeNull();
  });

  it("acts from a passkey sign-in, and the history says so", async () => {
    const w = await world();
    await changePerson(deps, w.person.id, { status: "approved" }, w.acting(["hwk", "user"]));
    expect((await w.entries())[0]?.by).toEqual({
      kind: "admin",
      personId: w.admin.id,
      email: w.admin.emails[0],
      amr: ["hwk", "user"],
    });
  });
});

describe("a person made an administrator under the passkey rule", () => {
  it("is told to add a passkey, and until when an email code is enough for the first", async () => {
    const w = await world();
    await changePerson(deps, w.person.id, { status: "approved", role: "admin" }, w.acting(["hwk", "user"]));
    const entries = await deps.store.collection("outbox").where("about", "==", w.person.id).get();
    const told = entries.docs.flatMap((d) => (d.get("notice.lines") as string[] | undefined) ?? []);
    expect(told).toContainEqual(expect.stringContaining("You were made an administrator."));
    expect(told).toContainEqual(expect.stringMatching(/add a passkey on your account page before .* \(7 days\)/));
    expect((await w.stored()).enrolmentFrom).toBeInstanceOf(Date);
  });
});

describe("step-up under the passkey rule", () => {
  it("refuses a widening from a passkey sign-in grown old with passkey_required, not step_up_required", async () => {
    const w = await world();
    const stale = w.acting(["swk", "user"], STEP_UP_MS + 1);
    expect(await refusal(changePerson(deps, w.person.id, { status: "approved" }, stale))).toBe("passkey_required");
    // Narrowing needs no step-up, from a passkey sign-in of any age.
    expect(await refusal(changePerson(deps, w.person.id, { status: "rejected" }, stale))).toBeNull();
  });

  it("takes no fresh email code for one: a code sign-in of a second ago is refused", async () => {
    const w = await world();
    expect(await refusal(changePerson(deps, w.person.id, { status: "approved" }, w.acting(["otp"], 1000)))).toBe(
      "passkey_required",
    );
  });
});

describe("the operator's lift of the rule for one person", () => {
  it("lets their acts through from an email code until the second it ends, each recorded as under the lift", async () => {
    const w = await world();
    await lift(w.admin.id, 10);
    await changePerson(deps, w.person.id, { name: "Under the lift" }, w.acting(["otp"]));
    expect((await w.entries())[0]?.by).toMatchObject({ kind: "admin", amr: ["otp"], lifted: true });
    deps.clock.advance(10 * MINUTE - 1);
    await changePerson(deps, w.person.id, { name: "Still under it" }, w.acting(["otp"]));
    deps.clock.advance(1);
    expect(await refusal(changePerson(deps, w.person.id, { name: "After it" }, w.acting(["otp"])))).toBe(
      "passkey_required",
    );
    expect((await w.stored()).name).toBe("Still under it");
  });

  it("is one person's: another administrator signed in by code is still refused", async () => {
    const w = await world();
    const other = await world();
    await lift(w.admin.id, 10);
    expect(await refusal(changePerson(deps, other.person.id, { name: "No" }, other.acting(["otp"])))).toBe(
      "passkey_required",
    );
  });
});
