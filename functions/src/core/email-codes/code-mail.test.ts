import fc from "fast-check";
import { codeMail } from "./code-mail";

describe("codeMail", () => {
  const codes = fc.integer({ min: 0, max: 999_999 }).map((n) => String(n).padStart(6, "0"));
  const purposes = fc.constantFrom("signin" as const, "request-access" as const);

  it("puts the code in both bodies and nowhere else", () => {
    fc.assert(
      fc.property(codes, purposes, (code, purpose) => {
        const mail = codeMail("ada@example.test", code, purpose, "https://id.example.test");
        expect(mail.to).toBe("ada@example.test");
        expect(mail.text).toContain(code);
        expect(mail.html).toContain(code);
        expect(mail.subject).not.toMatch(/[0-9]/);
        expect(`${mail.text}${mail.html}`).not.toMatch(/https?:|href=|src=/i);
      }),
    );
  });

  it.each([
    ["signin", /sign in/i],
    ["request-access", /access request/i],
  ] as const)("says what a %s code is for, that it lasts 10 minutes, and that it can be ignored", (purpose, what) => {
    const mail = codeMail("ada@example.test", "012345", purpose, "https://id.example.test");
    for (const body of [mail.text, mail.html]) {
      expect(body).toMatch(what);
      // Where the code goes: the identity host, named and not linked.
      expect(body).toMatch(/page at id\.example\.test, where you asked/);
      expect(body).toContain("10 minutes");
      expect(body).toMatch(/did not ask .* ignore this email/i);
    }
  });
});
