/**
 * The outbox's log lines as docs/operating.md lists them are the ones the code logs: the table
 * between its markers is the one core/outbox/log.ts makes, row for row. When a line changes, paste
 * the table this test prints in its failure.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { KINDS } from "../../src/core/outbox/kinds";
import { OUTBOX_LOG } from "../../src/core/outbox/log";
import type { OutboxLane } from "../../src/core/model/outbox";

const DOC = join(__dirname, "..", "..", "..", "docs", "operating.md");
const START = "<!-- outbox-log:start (functions/test/unit/outbox-log.test.ts) -->";
const END = "<!-- outbox-log:end -->";
const LANES: OutboxLane[] = ["mail", "apps", "bulk"];

const code = (words: readonly string[]) => (words.length === 0 ? "—" : words.map((w) => `\`${w}\``).join(", "));

function table(): string {
  const rows = Object.values(OUTBOX_LOG).map((line) => {
    const lanes = LANES.filter((lane) => line.kinds.some((kind) => KINDS[kind].lane === lane));
    return `| ${code(lanes)} | ${code(line.kinds)} | \`${line.message}\` | ${code(line.fields)} | ${line.severity} | ${line.means} |`;
  });
  return ["| Lane | Kind | Message | Fields | Severity | What happened |", "|---|---|---|---|---|---|", ...rows].join(
    "\n",
  );
}

describe("the outbox's log lines", () => {
  it("are listed in docs/operating.md as the code logs them", () => {
    const doc = readFileSync(DOC, "utf8");
    const [, after] = doc.split(START);
    const listed = after?.split(END)[0]?.trim();
    expect(listed).toEqual(table());
  });

  it("each have one message", () => {
    const messages = Object.values(OUTBOX_LOG).map((line) => line.message);
    expect(new Set(messages).size).toBe(messages.length);
  });
});
