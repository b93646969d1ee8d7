import { csv, csvCell } from "./audit-csv";
import type { AuditRecord } from "./model/audit";

const record = (over: Partial<AuditRecord>): AuditRecord => ({
  id: "r1",
  at: new Date("2026-11-29T10:00:00Z"),
  actor: { kind: "operator", name: "ops@desk" },
  actorId: "operator:ops@desk",
  kind: "operator",
  action: "cli.people.approve",
  subjects: ["p1"],
  detail: { options: [] },
  outcome: "done",
  client: { via: "cli", from: "demo-identity" },
  traceId: null,
  forgetAfter: new Date("2027-01-03T10:00:00Z"),
  ...over,
});

describe("the audit trail as CSV", () => {
  it("quotes every cell and doubles quotes, one record a line under a header", () => {
    const out = csv([record({ subjects: ['a"b', "c,d"] })]).split("\r\n");
    expect(out[0]).toBe('"at","actor","action","subjects","outcome","via","detail","trace","id"');
    expect(out[1]).toBe(
      '"2026-11-29T10:00:00.000Z","operator:ops@desk","cli.people.approve","a""b c,d","done","cli (demo-identity)","options=","","r1"',
    );
    expect(out).toHaveLength(2);
  });

  it.each(['=HYPERLINK("x")', "+1", "-2", "@SUM(A1)", "\tx", "\rx", "\nx", " =1+1", "\uFF1D1+1", "\uFF20SUM(A1)"])(
    "keeps a spreadsheet from reading %j as a formula",
    (value) => {
      expect(csvCell(value)).toMatch(/^"'/);
    },
  );

  it("leaves an ordinary cell as it is", () => {
    expect(csvCell("https://agent.example/client.json")).toBe('"https://agent.example/client.json"');
  });
});
