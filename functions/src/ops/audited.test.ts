import { COMMANDS } from "./operator";

describe("which commands the audit trail records", () => {
  /** Those that change nothing and copy no one's data: a new command is one or the other, by decision. */
  const READING = [
    "status",
    "use",
    "people list",
    "people queue",
    "people history",
    "people show",
    "people invitations",
    "people erasures",
    "sessions list",
    "passkey-rule show",
    "clients list",
    "clients show",
    "resources list",
    "api-keys list",
    "hooks list",
    "hooks show",
    "hooks deliveries",
    "audit",
    "doctor",
  ];

  it("records every command but those that only read", () => {
    const unrecorded = COMMANDS.filter((c) => c.audited !== true).map((c) => c.name);
    expect(unrecorded.sort()).toEqual([...READING].sort());
  });
});
