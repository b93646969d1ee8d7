/** `status` (where the CLI works, and why) and `use` (this checkout's default target). */
import { existsSync } from "node:fs";
import { one, type Command } from "../cli";
import { healthReport, REPORT_WINDOWS, type HealthReport, type ReportWindow } from "../../core/status/report";
import { shown } from "../local-stack";
import { table } from "../output";
import { UsageError } from "../refusals";
import { settingsFiles } from "../settings";
import { projectId, saveTarget, SAVED_TARGET } from "../target";
import { addressRulesText } from "../address-rules";
import type { AddressRule } from "../../core/settings";

const sum = (counts: readonly number[]) => counts.reduce((a, b) => a + b, 0);
const waited = (seconds: number | null) => (seconds === null ? "none waiting" : `the oldest for ${seconds} s`);

const refusals = (rs: HealthReport["refused"]["codes"]) =>
  rs.map((r) => `${r.reason} ${sum(r.counts)}`).join(", ") || "none";

/** The health report in lines: each series' total over the window, and what stands now. */
export function healthText(r: HealthReport): string[] {
  const at = r.partial ? "at least " : "";
  return [
    `health over the last ${r.window} (${r.from} to ${r.to}, per ${r.window === "24h" ? "hour" : "day"} with --json):`,
    `  sign-ins: ${r.signIns.map((s) => `${s.way} ${at}${sum(s.counts)}`).join(", ") || "none"}`,
    `  email codes: sent ${at}${sum(r.codes.sent)}, given up ${sum(r.codes.givenUp)}, not needed ${sum(r.codes.notNeeded)}`,
    `  code requests refused: ${refusals(r.refused.codes)}`,
    `  sign-ins refused: ${refusals(r.refused.signIns)}`,
    `  deliveries given up: ${r.deliveriesGivenUp.map((d) => `${d.app} ${d.count}`).join(", ") || "none"}`,
    `  people waiting for review: ${r.waiting.people} (${waited(r.waiting.oldestSeconds)})`,
    `  outbox: ${r.outbox.map((l) => `${l.lane} ${l.pending} (${waited(l.oldestSeconds)})`).join(", ")}`,
    `  unfinished erasures: ${r.erasures.unfinished}${r.erasures.oldestSeconds === null ? "" : ` (the oldest begun ${r.erasures.oldestSeconds} s ago)`}`,
  ];
}

export const statusCommands: Command[] = [
  {
    name: "status",
    summary:
      "the target (local stack or project), every local address, and the settings that chose it; with --since, the service's health over 24h or 7d",
    usage: "status [--since 24h|7d]",
    options: { since: { type: "string" } },
    positionals: [0, 0],
    async run(ctx, _args, values) {
      const since = one(values, "since");
      if (since !== undefined && !(since in REPORT_WINDOWS)) throw new UsageError("--since must be 24h or 7d");
      const { target } = ctx;
      const files = settingsFiles(target, false)
        .filter((f) => existsSync(f))
        .map(shown);
      const lines = [
        `target: ${target.projectId} (${target.emulators ? "local emulators" : "a real project, with Application Default Credentials"})`,
        `chosen by: ${target.chosenBy}`,
      ];
      if (target.emulators)
        lines.push(
          `  Firestore ${target.firestore}, Auth ${target.auth}, Cloud Tasks ${target.tasks ?? "(none: mail a command queues is sent by the command)"}`,
        );
      if (target.stack !== null) {
        const { stack } = target;
        lines.push(
          "",
          `local stack: running since ${stack.startedAt} (process ${stack.pid}), Firestore: ${stack.firestore}${stack.firestoreWhy === undefined ? "" : ` (${stack.firestoreWhy})`}`,
          ...Object.entries(stack.urls).map(([what, url]) => `  ${what.padEnd(22)} ${url}`),
        );
      }
      // The settings as the functions read them; a mistake in them is doctor's to explain.
      let addressRules: AddressRule[] | null = null;
      try {
        addressRules = ctx.config().addressRules;
      } catch {
        addressRules = null;
      }
      lines.push(
        "",
        addressRules === null
          ? "address rules: cannot be read (npm run operator -- doctor says why)"
          : addressRulesText(addressRules),
        "",
        `settings files for ${target.projectId}: ${files.length === 0 ? "(none)" : files.join(", ")}`,
        "",
        "what chooses the target, most explicit first:",
        table(
          target.considered,
          [
            { header: "SETTING", value: (c) => c.setting },
            { header: "VALUE", value: (c) => c.value ?? "-" },
          ],
          "",
        ),
      );
      const health = since === undefined ? null : await healthReport(ctx.deps(), since as ReportWindow);
      if (health !== null) lines.push("", ...healthText(health));
      ctx.print(lines.join("\n"), {
        ...(health === null ? {} : { health }),
        projectId: target.projectId,
        emulators: target.emulators,
        firestore: target.firestore,
        auth: target.auth,
        tasks: target.tasks,
        chosenBy: target.chosenBy,
        stack: target.stack,
        settingsFiles: files,
        considered: target.considered,
        addressRules,
      });
    },
  },
  {
    name: "use",
    summary: "save the default target of this checkout: a project id, or `local` for the local stack",
    usage: "use <project-id>|local",
    positionals: [1, 1],
    async run(ctx, [choice]) {
      if (choice === "local") {
        saveTarget(null);
        ctx.print("default target: the local stack", { project: null });
        return;
      }
      if (choice === undefined) throw new UsageError("use: name a project id, or local");
      saveTarget(projectId(choice));
      ctx.print(`default target: ${choice} (saved in ${shown(SAVED_TARGET)})`, { project: choice });
      ctx.note("--local, or emulator hosts in the environment, still choose the local stack for one command.");
    },
  },
];
