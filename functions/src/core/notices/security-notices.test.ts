import fc from "fast-check";
import type { Person } from "../model/person";
import type { OutboxNotice } from "../model/outbox";
import {
  accountLinkedEvent,
  ADDRESS_REMOVED,
  addressRemovedNotices,
  recipientOf,
  passkeysEvent,
  personChangeEvent,
  sessionsEndedEvent,
} from "./security-notices";
import { securityMail } from "./security-mail";

const ALL_ON = { newBrowser: true, waysIn: true, access: true };
const at = new Date("2026-11-26T17:40:12Z");

function person(fields: Partial<Person> = {}): Person {
  return {
    id: "p1",
    uids: ["u1"],
    emails: ["ada@example.test"],
    phones: [],
    name: "Ada",
    role: "user",
    projects: ["startpage"],
    groups: [],
    status: "approved",
    createdAt: at,
    updatedAt: at,
    origin: null,
    note: "",
    ...fields,
  };
}

function notice(fields: Partial<OutboxNotice> = {}): OutboxNotice {
  return {
    kind: "waysIn",
    lines: [],
    at,
    from: "Firefox on Windows",
    learn: null,
    quiet: false,
    folded: {},
    ...fields,
  };
}

describe("personChangeEvent", () => {
  it("tells ways in first, and adds what access changed", () => {
    const before = person({ emails: ["ada@example.test", "old@example.test"] });
    const after = person({ emails: ["ada@example.test"], projects: ["startpage", "calendar"], role: "admin" });
    expect(personChangeEvent(ALL_ON, before, after, "an operator, on the command line")).toEqual({
      kind: "waysIn",
      lines: [
        "Address removed: old@example.test.",
        "Your role changed from user to admin.",
        "Access given to project: calendar.",
      ],
      from: "an operator, on the command line",
    });
  });

  it("tells nothing of a decision on a pending person (the review's notices do), nor of a name", () => {
    expect(personChangeEvent(ALL_ON, person({ status: "pending" }), person(), "x")).toBeNull();
    expect(personChangeEvent(ALL_ON, person(), person({ name: "Ada L." }), "x")).toBeNull();
  });

  it("tells nothing of the grants an approval gives with it: the approval's one notice is enough", () => {
    const waiting = person({ status: "pending", projects: [] });
    expect(personChangeEvent(ALL_ON, waiting, person({ projects: ["startpage", "status"] }), "x")).toBeNull();
    // A pending person given a grant, not yet decided on, is told as anyone is.
    expect(personChangeEvent(ALL_ON, waiting, { ...waiting, projects: ["status"] }, "x")).toMatchObject({
      lines: ["Access given to project: status."],
    });
  });

  it("tells a new first address as a change of the ways in, naming both", () => {
    const before = person({ emails: ["ada@example.test", "new@example.test"] });
    const after = person({ emails: ["new@example.test", "ada@example.test"] });
    expect(personChangeEvent(ALL_ON, before, after, "x")).toEqual({
      kind: "waysIn",
      lines: ["Mail for your account now goes to new@example.test, no longer to ada@example.test."],
      from: "x",
    });
  });

  it("names what went with a removed address: its sign-ins, and the passkeys and codes added through it", () => {
    const before = person({ emails: ["ada@example.test", "work@example.test"] });
    const after = person({ emails: ["ada@example.test"] });
    const gone = { accounts: ["Google (work@example.test)"], passkeys: ["Phone", "Laptop"], codes: true };
    expect(personChangeEvent(ALL_ON, before, after, "x", gone)?.lines).toEqual([
      "Address removed: work@example.test.",
      "These sign-ins went with it, and no longer sign in as you: Google (work@example.test).",
      "2 passkeys added from a sign-in through it went with it, and no longer sign you in: “Phone”, “Laptop”.",
      "Your recovery codes, made from a sign-in through it, went with it.",
    ]);
    expect(personChangeEvent(ALL_ON, before, after, "x", { passkeys: ["Phone"] })?.lines).toContain(
      "A passkey added from a sign-in through it went with it, and no longer signs you in: “Phone”.",
    );
  });

  it("leaves out each kind the operator turned off, and tells nothing when nothing is left", () => {
    const before = person({ phones: ["+15555550100"] });
    const after = person({ phones: [], projects: [] });
    const noWays = personChangeEvent({ ...ALL_ON, waysIn: false }, before, after, "x");
    expect(noWays).toMatchObject({ kind: "access", lines: ["Access taken away from project: startpage."] });
    const noAccess = personChangeEvent({ ...ALL_ON, access: false }, before, after, "x");
    expect(noAccess).toMatchObject({ kind: "waysIn", lines: ["Phone number removed: +15555550100."] });
    expect(personChangeEvent({ ...ALL_ON, waysIn: false, access: false }, before, after, "x")).toBeNull();
  });
});

describe("addressRemovedNotices", () => {
  it("is one notice for each removed address, to it alone, carrying nothing of the change", () => {
    const before = person({ emails: ["ada@example.test", "old@example.test", "older@example.test"] });
    const after = person({ emails: ["ada@example.test", "new@example.test"], projects: ["calendar"] });
    const event = { kind: ADDRESS_REMOVED, lines: [], from: "" };
    expect(addressRemovedNotices(ALL_ON, before, after)).toEqual([
      { recipient: { personId: before.id, to: "old@example.test" }, event },
      { recipient: { personId: before.id, to: "older@example.test" }, event },
    ]);
  });

  it("tells nothing when no address went, or when ways-in notices are off", () => {
    const before = person({ emails: ["ada@example.test", "old@example.test"] });
    const after = person({ emails: ["ada@example.test"] });
    expect(addressRemovedNotices(ALL_ON, before, before)).toEqual([]);
    expect(addressRemovedNotices({ ...ALL_ON, waysIn: false }, before, after)).toEqual([]);
  });
});

describe("recipientOf", () => {
  it("is the first address held before the change and kept after it, never one the change adds", () => {
    const before = person({ emails: ["ada@example.test", "work@example.test"] });
    const promoted = person({ emails: ["new@example.test", "ada@example.test", "work@example.test"] });
    expect(recipientOf(before, promoted).to).toBe("ada@example.test");
    // Its first address removed: the next of the old ones, which the removal does not take.
    const without = person({ emails: ["new@example.test", "work@example.test"] });
    expect(recipientOf(before, without).to).toBe("work@example.test");
    // Every old address replaced: only the new one is left to tell (the old are told apart).
    expect(recipientOf(before, person({ emails: ["new@example.test"] })).to).toBe("new@example.test");
    expect(recipientOf(person({ emails: [] })).to).toBeNull();
  });
});

describe("securityMail", () => {
  it("tells a removed address what happened and when, with no link and no other address", () => {
    const mail = securityMail(
      "old@example.test",
      notice({ kind: ADDRESS_REMOVED, lines: [], from: "" }),
      "https://id.example.test",
    );
    expect(mail.subject).toBe("This address was removed from an account");
    expect(mail.text).toContain("At id.example.test: this email address was removed from the account it was on");
    expect(mail.text).toMatch(/When: \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
    expect(`${mail.text}${mail.html}`).not.toMatch(/https?:\/\//);
  });

  it("has one link, to the account page, and escapes whatever a person named", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (name) => {
        const event = passkeysEvent("added", [name], "Firefox on Windows");
        const mail = securityMail("ada@example.test", notice({ lines: event.lines }), "https://id.example.test");
        const links = [...mail.html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]);
        expect(links).toEqual(["https://id.example.test/account"]);
        expect(mail.html).not.toMatch(/<(?!\/?(?:p|a|html|head|meta|title|body|!doctype)\b)/i);
        expect(mail.text).toContain("When: 2026-11-26 17:40 UTC");
      }),
    );
  });

  it("writes a summary of what was folded into it, by kind", () => {
    const mail = securityMail(
      "ada@example.test",
      notice({ kind: "summary", folded: { newBrowser: 17, waysIn: 1 } }),
      "https://id.example.test",
    );
    expect(mail.subject).toBe("More changes to your account");
    expect(mail.text).toContain("17 sign-ins from new browsers, 1 change to your ways in");
  });
});

describe("every line that counts, read with one and with many", () => {
  it("says one passkey, and several, added or removed", () => {
    expect(passkeysEvent("added", ["Work laptop"], "Firefox on Windows").lines).toEqual([
      "A passkey was added: “Work laptop”.",
    ]);
    expect(passkeysEvent("removed", ["Phone", "Key"], "Firefox on Windows").lines).toEqual([
      "2 passkeys were removed: “Phone”, “Key”.",
    ]);
  });

  it("says one session ended, and several", () => {
    expect(sessionsEndedEvent(1, "an operator, on the command line").lines[0]).toMatch(
      /^One of your sessions was ended/,
    );
    expect(sessionsEndedEvent(3, "an operator, on the command line").lines[0]).toMatch(
      /^3 of your sessions were ended/,
    );
  });

  it("counts one, several, and none of each kind folded into a summary", () => {
    const summary = (folded: Record<string, number>) =>
      securityMail("ada@example.test", notice({ kind: "summary", folded }), "https://id.example.test").text;
    expect(summary({ newBrowser: 1, access: 1 })).toContain("1 sign-in from a new browser, 1 change to your access");
    expect(summary({ waysIn: 4, access: 2 })).toContain("4 changes to your ways in, 2 changes to your access");
    expect(summary({ newBrowser: 2 })).not.toMatch(/ways in|access/);
  });

  it("names a linked account's provider in words, and says nothing of an account it was not given", () => {
    expect(accountLinkedEvent("google.com", "ada@example.test", "Safari on iOS").lines).toEqual([
      "A sign-in by Google (ada@example.test) was linked to your account, and now signs in as you.",
    ]);
    expect(accountLinkedEvent("gaming", null, "Safari on iOS").lines).toEqual([
      "A sign-in by gaming was linked to your account, and now signs in as you.",
    ]);
  });
});
