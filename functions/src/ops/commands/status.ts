/** `status` (where the CLI works, and why) and `use` (this checkout's default target). */
import { existsSync } from "node:fs";
import type { Command } from "../cli";
import { shown } from "../local-stack";
import { table } from "../output";
import { UsageError } from "../refusals";
import { settingsFiles } from "../settings";
import { projectId, saveTarget, SAVED_TARGET } from "../target";
import { addressRulesText } from "../address-rules";
import type { AddressRule } from "../../core/settings";

export const statusCommands: Command[] = [
  {
    name: "status",
    summary: "the target (local stack or project), every local address, and the settings that chose it",
    usage: "status",
    positionals: [0, 0],
    async run(ctx) {
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
      ctx.print(lines.join("\n"), {
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
