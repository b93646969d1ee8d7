import { causeOf, changeEventType, eventOf } from "./catalogue";

const change = (from: string | string[] | null, to: string | string[] | null) => ({ from, to });

describe("which event a change is", () => {
  it.each([
    [{ status: change("pending", "approved"), projects: change([], ["a"]) }, "person.approved"],
    [{ status: change("approved", "rejected") }, "person.rejected"],
    [{ status: change("approved", "pending") }, "person.access_changed"],
    [{ role: change("user", "admin") }, "person.access_changed"],
    [{ groups: change([], ["g"]), name: change("A", "B") }, "person.access_changed"],
    [{ name: change("A", "B") }, "person.profile_changed"],
    [{ emails: change(["a@x.test"], ["b@x.test"]) }, "person.profile_changed"],
    [{ uids: change(["u1"], ["u1", "u2"]) }, "person.profile_changed"],
    [{ note: change("", "hello") }, null],
    [{}, null],
  ])("%j is %s", (changes, type) => {
    expect(changeEventType(changes)).toBe(type);
  });

  it("names who caused it by kind, never by person", () => {
    expect(causeOf({ kind: "admin", personId: "p1", email: "a@x.test" })).toBe("administrator");
    expect(causeOf({ kind: "operator", name: "ops@console" })).toBe("operator");
    expect(causeOf({ kind: "person" })).toBe("person");
  });
});

describe("what an event says", () => {
  const facts = {
    id: "evt_1",
    at: new Date("2026-11-27T10:00:00Z"),
    person: { id: "p1", uids: ["u1"] },
    seq: 4,
    by: "administrator" as const,
    changes: { name: change("A", "B"), note: change("", "private") },
  };

  it("carries the changed fields but the note to the reviewer", () => {
    expect(eventOf({ ...facts, type: "person.profile_changed" })).toEqual({
      id: "evt_1",
      type: "person.profile_changed",
      version: 1,
      occurredAt: "2026-11-27T10:00:00.000Z",
      personId: "p1",
      seq: 4,
      data: { uids: ["u1"], by: "administrator", changes: { name: change("A", "B") } },
    });
  });

  it("says nothing of an erased person but the ids", () => {
    expect(eventOf({ ...facts, type: "person.erased" }).data).toEqual({ uids: ["u1"], by: "administrator" });
  });
});
