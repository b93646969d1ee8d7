import { ago, byWhom, changeWords, proved, syncErrorWords, whatHappened, whoIs } from "./people-words";

describe("proved", () => {
  it("says what a person proved when they came", () => {
    expect(proved({ via: "email", address: "ada@example.org" })).toBe("Proved the address ada@example.org");
    expect(
      proved({ via: "account", bridge: "gaming", provider: "gaming", account: "7656", displayName: "Player One" }),
    ).toBe("Signed in through the gaming sign-in with the account 7656 at gaming, named “Player One”");
    expect(proved({ via: "account", bridge: null, provider: "phone", account: "", displayName: "" })).toBe(
      "Signed in at the identity provider with an account at phone",
    );
    expect(proved(null)).toBe("Added by an administrator");
  });

  it("says an address a provider the operator does not name gave is not proven, nor held", () => {
    const origin = {
      via: "account" as const,
      bridge: null,
      provider: "github.com",
      account: "octo",
      displayName: "",
      claimedAddress: "ada@example.org",
    };
    expect(proved(origin)).toBe(
      "Signed in at the identity provider with the account octo at github.com. It gave the address ada@example.org, not proven: the person does not hold it",
    );
  });
});

describe("whoIs", () => {
  it("names a person by name, else address, number or account", () => {
    const none = { name: "", email: null, phones: [], uid: null };
    expect(whoIs({ ...none, name: "Ada" })).toBe("Ada");
    expect(whoIs({ ...none, email: "a@b.c" })).toBe("a@b.c");
    expect(whoIs({ ...none, phones: ["+15555550123"] })).toBe("+15555550123");
    expect(whoIs(none)).toBe("Someone with no name or address");
  });
});

describe("ago", () => {
  const now = new Date("2026-03-10T12:00:00Z");
  it.each([
    ["2026-03-10T11:59:30Z", "just now"],
    ["2026-03-10T11:55:00Z", "5 minutes ago"],
    ["2026-03-10T09:00:00Z", "3 hours ago"],
    ["2026-03-09T11:00:00Z", "yesterday"],
    ["2026-02-20T12:00:00Z", "2 weeks ago"],
  ])("says %s was %s", (iso, words) => {
    expect(ago(iso, now)).toBe(words);
  });
});

describe("the history in words", () => {
  it("says what changed, field by field", () => {
    expect(changeWords("status", "pending", "approved")).toBe("Status: Waiting for review → Approved");
    expect(changeWords("role", "user", "admin")).toBe("Role: Member → Administrator");
    expect(changeWords("projects", ["status"], ["*", "calendar"])).toBe(
      "Projects: added Every project, calendar; removed status",
    );
    expect(changeWords("name", "", "Ada")).toBe("Name: none → “Ada”");
    expect(changeWords("emails", null, ["a@b.c"])).toBe("Email addresses: added a@b.c");
    expect(changeWords("sessions", ["s1", "s2"], null)).toBe("Ended 2 sessions");
    expect(changeWords("passkeys", ["Work laptop"], null)).toBe("Removed passkeys: Work laptop");
    expect(changeWords("recoveryCodes", "7", null)).toBe("Removed recovery codes (7 unused)");
  });

  it("says who did it, and how", () => {
    expect(byWhom({ by: { kind: "admin", personId: "p", email: "root@example.test" }, via: "api" })).toBe(
      "root@example.test",
    );
    expect(byWhom({ by: { kind: "operator", name: "ops" }, via: "cli" })).toBe("ops (operator) on the command line");
    expect(byWhom({ by: { kind: "person" }, via: "request-access" })).toBe("The person themself by requesting access");
  });

  it("starts a person's history with their coming", () => {
    expect(whatHappened({ event: "erased", changes: {} })).toEqual(["Deleted, with everything kept about them"]);
    expect(whatHappened({ event: "exported-someone", changes: { person: { from: null, to: "p1" } } })).toEqual([
      "Took a copy of someone's data (person p1)",
    ]);
    expect(whatHappened({ event: "created", changes: { status: { from: null, to: "pending" } } })).toEqual([
      "Came to the service",
      "Status: Waiting for review",
    ]);
  });
});

describe("syncErrorWords", () => {
  it("says the change was saved, and what to try again", () => {
    expect(syncErrorWords([])).toBeNull();
    expect(syncErrorWords([{ uid: "u1" }])).toBe(
      "The change was saved, but the identity provider did not accept ending u1's sessions: try again.",
    );
  });
});
