import fc from "fast-check";
import { csvRecords, FILE_ROWS_MAX, readInvitationFile } from "./invitation-file";

describe("readInvitationFile", () => {
  it("reads each row's terms, with lists split by semicolons and the line each starts on", () => {
    const file = [
      "address,name,projects,groups,role,note",
      "Ada@Example.test,Ada Lovelace,alpha; beta,analysts,,",
      '"grace@example.test","Hopper, Grace",alpha,,admin,"says ""hi""',
      'on two lines"',
      "",
      "linus@example.test,,,,,",
    ].join("\r\n");
    const { rows, problems } = readInvitationFile(file);
    expect(problems).toEqual([]);
    expect(rows).toEqual([
      {
        line: 2,
        terms: {
          address: "ada@example.test",
          name: "Ada Lovelace",
          projects: ["alpha", "beta"],
          groups: ["analysts"],
          role: "user",
          note: "",
        },
      },
      {
        line: 3,
        terms: {
          address: "grace@example.test",
          name: "Hopper, Grace",
          projects: ["alpha"],
          groups: [],
          role: "admin",
          note: 'says "hi" on two lines',
        },
      },
      {
        line: 6,
        terms: { address: "linus@example.test", name: "", projects: [], groups: [], role: "user", note: "" },
      },
    ]);
  });

  it("reports every bad row by its line, and keeps none of a file that has one", () => {
    const file = [
      "email,projects,role",
      "not-an-address,alpha,",
      "ok@example.test,alpha,",
      "other@example.test,alpha,owner",
      "OK@example.test,beta,",
      "extra@example.test,alpha,user,surplus",
    ].join("\n");
    const { problems } = readInvitationFile(file);
    expect(problems).toEqual([
      { line: 2, error: "the address is not an email address" },
      { line: 4, error: 'the role is "user" or "admin"' },
      { line: 5, error: "the address is on line 3 too" },
      { line: 6, error: "it has 4 fields; the header names 3" },
    ]);
  });

  it("refuses a row with fewer cells than the header, by its line, rather than read the rest as empty", () => {
    const file = [
      "address,projects,role",
      "whole@example.test,alpha,admin",
      "short@example.test,alpha",
      "bare@example.test",
      "empty-cells@example.test,,",
    ].join("\n");
    const { rows, problems } = readInvitationFile(file);
    expect(problems).toEqual([
      { line: 3, error: "it has 2 fields; the header names 3" },
      { line: 4, error: "it has 1 field; the header names 3" },
    ]);
    // Cells written empty are still a choice the file made: no projects, a user.
    expect(rows.map((r) => [r.line, r.terms.projects, r.terms.role])).toEqual([
      [2, ["alpha"], "admin"],
      [5, [], "user"],
    ]);
    // A file of one column has one cell a row.
    expect(readInvitationFile("address\nsolo@example.test\n").problems).toEqual([]);
  });

  it("refuses a header without an address column, or with a column it does not know", () => {
    expect(readInvitationFile("name,projects\nAda,alpha\n").problems[0]?.line).toBe(1);
    expect(readInvitationFile("address,project\na@example.test,alpha\n").problems[0]?.error).toMatch(/not project/);
    expect(readInvitationFile("").problems).toEqual([{ line: 1, error: "the file is empty" }]);
  });

  it("refuses a quoted field never closed, naming the line it opened on", () => {
    expect(readInvitationFile('address,note\na@example.test,fine\nb@example.test,"open\n').problems).toEqual([
      { line: 3, error: "a quoted field is never closed" },
    ]);
  });

  it("refuses a note or name past its limit before anything is done", () => {
    const long = "x".repeat(1001);
    expect(readInvitationFile(`address,note\na@example.test,${long}\n`).problems[0]).toEqual({
      line: 2,
      error: "note is at most 1000 characters",
    });
  });

  it(`refuses a file of more than ${FILE_ROWS_MAX} rows`, () => {
    const rows = Array.from({ length: FILE_ROWS_MAX + 1 }, (_, i) => `p${i}@example.test`);
    expect(readInvitationFile(["address", ...rows].join("\n")).problems[0]?.error).toMatch(/at most/);
  });
});

describe("csvRecords", () => {
  it("reads back any fields written with RFC 4180 quoting", () => {
    const cell = fc.string({ unit: fc.constantFrom("a", "b", ",", '"', "\n", "\r\n", " ", "é") });
    fc.assert(
      fc.property(
        fc.array(fc.array(cell, { minLength: 2, maxLength: 4 }), { minLength: 1, maxLength: 5 }),
        (records) => {
          const text = records.map((r) => r.map((f) => `"${f.replaceAll('"', '""')}"`).join(",")).join("\r\n");
          const read = csvRecords(text).records.map((r) => r.fields);
          expect(read).toEqual(records);
        },
      ),
    );
  });
});
