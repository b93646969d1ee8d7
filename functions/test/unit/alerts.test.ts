/**
 * The alerts kept in the repository (monitoring/): every ERROR line the code can log is counted by
 * a log-based metric (monitoring/metrics) that an alert policy (monitoring/policies) watches, or
 * is listed in monitoring/unalerted.json with the reason it has none (or printed by no service at
 * all: NOT_DEPLOYED); every metric has its policy and every policy its metric. A new `log.error`
 * without either fails here.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { OUTBOX_LOG } from "../../src/core/outbox/log";

const root = join(__dirname, "..", "..", "..");
const src = join(root, "functions", "src");
const monitoring = join(root, "monitoring");

interface Metric {
  name: string;
  filter: string;
}
interface Policy {
  displayName: string;
  conditions: Array<{ conditionThreshold: { filter: string } }>;
  documentation: { content: string };
}

const json = <T>(path: string): T => JSON.parse(readFileSync(path, "utf8")) as T;
const filesIn = (dir: string): string[] =>
  readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .map((f) => join(dir, f));
const metrics = filesIn(join(monitoring, "metrics")).map((f) => json<Metric>(f));
const policies = filesIn(join(monitoring, "policies")).map((f) => json<Policy>(f));
const unalerted = json<Record<string, string>>(join(monitoring, "unalerted.json"));

/** Files whose ERROR lines are no service's: what they print is read where it is printed. */
const NOT_DEPLOYED: Record<string, string> = {
  "ops/operator.ts": "the operator's CLI, whose refusals and failures are its answer in the terminal",
  "ops/context.ts": "the CLI's logger, which prints to the operator's terminal",
  "ops/seed.ts": "the local stack's seed, which never runs in a deployed project",
  "runtime/gcp-build.ts": "the build, which runs before anything is deployed",
};
/** Files whose `.error(` takes a message it is handed, not one of its own. */
const PASSES_ON: Record<string, string> = {
  "logger.ts": "the logger itself",
  "core/outbox/log.ts": "the outbox's table of lines (OUTBOX_LOG), read below",
};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sources(join(dir, e.name))
      : e.name.endsWith(".ts") && !e.name.endsWith(".test.ts")
        ? [join(dir, e.name)]
        : [],
  );
}

/** Every message logged at ERROR, as a sample line (a template's `${…}` as "mail"). */
function errorMessages(): Array<{ message: string; where: string }> {
  const found: Array<{ message: string; where: string }> = [];
  for (const file of sources(src)) {
    const where = relative(src, file);
    if (Object.keys(NOT_DEPLOYED).some((prefix) => where.startsWith(prefix))) continue;
    const text = readFileSync(file, "utf8");
    for (const call of text.matchAll(/\.error\(\s*([^,)]*)/g)) {
      const argument = (call[1] ?? "").trim();
      const literal = /^(["'`])(.*)\1$/s.exec(argument);
      if (literal === null) {
        if (where in PASSES_ON) continue;
        throw new Error(`${where}: an ERROR line whose message is not written out (${argument})`);
      }
      found.push({ message: (literal[2] ?? "").replace(/\$\{[^}]*\}/g, "mail"), where });
    }
  }
  for (const line of Object.values(OUTBOX_LOG))
    if (line.severity === "ERROR") found.push({ message: line.message, where: "core/outbox/log.ts" });
  return found;
}

/** Whether the metric's filter counts a line with `message`. */
function counts(metric: Metric, message: string): boolean {
  const exact = /jsonPayload\.message="((?:[^"\\]|\\.)*)"/.exec(metric.filter);
  if (exact) return exact[1] === message;
  const pattern = /jsonPayload\.message=~"((?:[^"\\]|\\.)*)"/.exec(metric.filter);
  return pattern !== null && new RegExp(pattern[1] as string).test(message);
}

describe("the alerts kept in the repository", () => {
  it("count every ERROR line a deployed function can log, or say why one is not", () => {
    const messages = errorMessages();
    expect(messages.length).toBeGreaterThan(5);
    const bare = messages.filter(
      ({ message }) => !metrics.some((m) => counts(m, message)) && unalerted[message] === undefined,
    );
    expect(bare).toEqual([]);
  });

  it("watch every metric with one policy, and nothing else", () => {
    const typeOf = (m: Metric) => `metric.type="logging.googleapis.com/user/${m.name}"`;
    for (const metric of metrics) {
      expect(metric.filter).toContain('resource.type="cloud_run_revision"');
      const watching = policies.filter((p) =>
        p.conditions.some((c) => c.conditionThreshold.filter.includes(typeOf(metric))),
      );
      expect([metric.name, watching.length]).toEqual([metric.name, 1]);
    }
    for (const policy of policies) {
      expect(policy.documentation.content.length).toBeGreaterThan(40);
      for (const condition of policy.conditions)
        expect(metrics.some((m) => condition.conditionThreshold.filter.includes(typeOf(m)))).toBe(true);
    }
  });

  it("state a reason for each line left unalerted, and list none that no code logs", () => {
    const logged = new Set(
      sources(src).flatMap((file) =>
        [...readFileSync(file, "utf8").matchAll(/\.error\(\s*"([^"]*)"/g)].map((m) => m[1] as string),
      ),
    );
    for (const [message, reason] of Object.entries(unalerted)) {
      expect([message, reason.length > 20]).toEqual([message, true]);
      expect([message, logged.has(message)]).toEqual([message, true]);
    }
  });

  it("would fail for an ERROR line nobody counts", () => {
    expect(metrics.some((m) => counts(m, "mail given up"))).toBe(true);
    expect(metrics.some((m) => counts(m, "the mail task failed"))).toBe(true);
    expect(metrics.some((m) => counts(m, "something new went wrong"))).toBe(false);
  });
});
