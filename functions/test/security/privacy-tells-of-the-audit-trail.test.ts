/**
 * docs/privacy.md says what the service keeps about people, where, why, how long and who sees it,
 * and what an erasure leaves ("What stays: one entry in personHistory"). The audit trail keeps a
 * person's id for 400 days: as the subject of every administrator's act on them (with their
 * status, role, projects and groups before and after), as the actor of every refusal they met
 * (with how their session began), and as an erased administrator's acts; and an erasure leaves
 * all of it (functions/test/people/erasure.test.ts keeps `auditTrail` among what names her).
 * The privacy page must say so, in what is kept and in what an erasure leaves.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

const privacy = readFileSync(join(__dirname, "..", "..", "..", "docs", "privacy.md"), "utf8");

/** The text of a `## ` section, up to the next one. */
function section(title: string): string {
  const start = privacy.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`docs/privacy.md has no "## ${title}"`);
  const next = privacy.indexOf("\n## ", start + 1);
  return privacy.slice(start, next < 0 ? undefined : next);
}

describe("docs/privacy.md", () => {
  it("lists the audit trail among what is kept", () => {
    expect(section("What is kept")).toContain("auditTrail");
  });

  it("says what an erasure leaves on the audit trail", () => {
    const stays = section("Erasure")
      .split("\n\n")
      .find((p) => p.includes("**What stays**"));
    expect(stays).toMatch(/audit ?trail|auditTrail/i);
  });
});
