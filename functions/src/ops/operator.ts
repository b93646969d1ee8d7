/**
 * The operator CLI: `npm run operator -- <command> [arguments]`. Where it works (the local stack or a
 * real project) and why: ops/target.ts, and `npm run operator -- status`.
 */
import { AppError, rowFor } from "../core/errors";
import { errorText } from "../logger";
import { apiKeyCommands } from "./commands/api-keys";
import { resourceCommands } from "./commands/resources";
import { clientCommands } from "./commands/clients";
import { doctorCommand } from "./commands/doctor";
import { auditCommand } from "./commands/audit";
import { keyCommands } from "./commands/keys";
import { hookCommands } from "./commands/hooks";
import { peopleCommands } from "./commands/people";
import { invitationCommands } from "./commands/invitations";
import { sessionCommands } from "./commands/sessions";
import { passkeyRuleCommands } from "./commands/passkey-rule";
import { statusCommands } from "./commands/status";
import { GLOBAL_HELP, GLOBAL_OPTIONS, formatOf, one, parse, wantsJson, type Command, type Values } from "./cli";
import type { Logger } from "../logger";
import { context, type Context } from "./context";
import { findLocalStack } from "./local-stack";
import { errorReport, type ErrorKind } from "./output";
import { Refusal, UsageError } from "./refusals";
import { nearest } from "./suggest";
import { applyTarget, ensureReachable, readSavedTarget, resolveTarget } from "./target";

/** Every command, in the order `help` lists them (docs/operating.md lists them from here too). */
export const COMMANDS: Command[] = [
  ...statusCommands,
  ...peopleCommands,
  ...invitationCommands,
  ...sessionCommands,
  ...passkeyRuleCommands,
  ...clientCommands,
  ...resourceCommands,
  ...apiKeyCommands,
  ...hookCommands,
  ...keyCommands,
  auditCommand,
  doctorCommand,
];

function overview(): string {
  return [
    "usage: npm run operator -- <command> [arguments] [options]",
    "",
    ...COMMANDS.map((c) => `  ${c.name.padEnd(26)} ${c.summary}`),
    "",
    GLOBAL_HELP,
  ].join("\n");
}

/** The command named by the first one or two words, and the rest of the arguments. */
function find(argv: string[]): { command: Command; rest: string[] } | null {
  for (const words of [2, 1]) {
    const name = argv.slice(0, words).join(" ");
    const command = COMMANDS.find((c) => c.name === name);
    if (command) return { command, rest: argv.slice(words) };
  }
  return null;
}

/** What a failure says to the operator: a refusal's own words, never a stack. */
function refusal(err: unknown): string {
  if (err instanceof AppError) return err.detail ?? rowFor(err.code).message;
  if (err instanceof Refusal) return err.message;
  return errorText(err).split("\n")[0] ?? "failed";
}

/**
 * The audit trail's record of a privileged command that reached its target, done or refused
 * (`failure`): who ran it, the command, what it named (an address as "[address]": the trail keeps
 * no one's address, and the people it reached by id), which options, and the project. A trail
 * that cannot be written is said on stderr; the command's own answer stands.
 */
async function audited(
  ctx: Context,
  command: Command,
  positionals: string[],
  values: Values,
  failure: unknown,
): Promise<void> {
  // Loaded here: `--help` and the commands that change nothing never load the store.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { recordAuditNow } = require("../core/audit") as typeof import("../core/audit");
  const own = Object.keys(values).filter((name) => !(name in GLOBAL_OPTIONS));
  // A client's id, even a metadata document's URL, is the public name the client goes by.
  const named = positionals.map((arg, i) =>
    i === 0 && command.name.startsWith("clients ") ? arg.slice(0, 2048) : namedAs(arg),
  );
  try {
    const record = await recordAuditNow(
      { ...ctx.deps(), log: silent },
      {
        actor: ctx.actor(),
        kind: "operator",
        action: `cli.${command.name.replace(/ /g, ".")}`,
        subjects: [...new Set([...named.slice(0, 20), ...ctx.reached()])],
        detail: {
          options: own,
          ...(failure === null ? {} : { reason: failure instanceof AppError ? failure.code : "refused" }),
        },
        outcome: failure === null ? "done" : "refused",
        client: { via: "cli", from: ctx.target.projectId },
      },
    );
    // Out of the project as the functions' records go: through its log, to the trail's sink.
    if (!ctx.target.emulators) {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { writeAuditLog } = require("./audit-log") as typeof import("./audit-log");
      await writeAuditLog(ctx.target.projectId, record).catch((err: unknown) =>
        console.error(`warning: Cloud Logging did not take this command's audit record: ${refusal(err)}`),
      );
    }
  } catch (err) {
    console.error(`warning: the audit trail did not take this command's record: ${refusal(err)}`);
  }
}

/**
 * An argument as the trail keeps it: an address as "[address]", an invitation's id (a hash of
 * its address) as "[invitation]", a URL as its origin alone (a path or query may hold a token,
 * as a hook's address may); a client's id is kept whole (above);
 * anything else, at most 200 characters.
 */
function namedAs(arg: string): string {
  if (arg.includes("@")) return "[address]";
  if (arg.startsWith("inv_")) return "[invitation]";
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(arg)) {
    try {
      return new URL(arg).origin;
    } catch {
      return "[address]";
    }
  }
  return arg.slice(0, 200);
}

/** The CLI's own record goes to Firestore alone: the operator's terminal is no log of the project's. */
const silent: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** Words that name no command: the commands of a group named alone, or the nearest name. */
function unknown(json: boolean, argv: string[]): number {
  const words = argv.filter((a) => !a.startsWith("-")).slice(0, 2);
  const group = COMMANDS.filter((c) => c.name.startsWith(`${words[0]} `)).map((c) => c.name);
  const report: { kind: ErrorKind; message: string; suggestion?: string } = {
    kind: "unknown_command",
    message:
      group.length === 0
        ? `unknown command "${words.join(" ")}" (npm run operator -- --help lists them all)`
        : `${words.length === 1 ? `"${words[0]}" needs a command` : `unknown command "${words.join(" ")}"`}: ${words[0]} ${group.map((n) => n.split(" ")[1]).join(", ")}`,
  };
  const guess = nearest(
    words,
    COMMANDS.map((c) => c.name),
  );
  if (guess !== null) report.suggestion = guess;
  console.error(errorReport(json, report));
  return 2;
}

export async function main(argv: string[]): Promise<number> {
  const json = wantsJson(argv);
  if (argv.length === 0 || argv[0] === "--help" || argv[0] === "-h" || argv[0] === "help") {
    console.log(overview());
    return argv.length === 0 ? 2 : 0;
  }
  const found = find(argv);
  if (!found) return unknown(json, argv);
  const { command, rest } = found;
  const fail = (code: number, kind: ErrorKind, message: string) => {
    const named = kind === "usage" ? {} : { command: command.name };
    console.error(
      errorReport(json, { kind, message, ...named, ...(kind === "usage" ? { usage: command.usage } : {}) }),
    );
    return code;
  };
  let ctx: Context | null = null;
  let reached = false;
  let named: string[] = [];
  try {
    const { help, values, positionals } = parse(command, rest);
    named = positionals;
    if (help) {
      console.log(`usage: npm run operator -- ${command.usage}\n\n${command.summary}\n\n${GLOBAL_HELP}`);
      return 0;
    }
    const target = resolveTarget({
      project: one(values, "project"),
      local: values.local === true,
      env: { ...process.env },
      saved: readSavedTarget(),
      stack: findLocalStack(),
    });
    applyTarget(target);
    ctx = context(target, { json: formatOf(values, command.formats) === "json", yes: values.yes === true });
    if (command.backend) await ensureReachable(target);
    reached = true;
    await command.run(ctx, positionals, values);
    if (command.audited) await audited(ctx, command, positionals, values, null);
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof UsageError) return fail(2, "usage", err.message);
    if (command.audited && reached && ctx !== null) await audited(ctx, command, named, {}, err);
    return fail(1, "refused", refusal(err));
  } finally {
    await ctx?.close();
  }
}

/**
 * Exits once stdout and stderr have taken everything written to them: into a pipe (`| jq`, a
 * script reading `--json`) they are written later, and an exit at once would cut a long answer
 * (a file of a thousand invitations) off at the pipe's first 64 KiB or so.
 */
function exitWhenWritten(code: number): void {
  let open = 2;
  const written = () => {
    if (--open === 0) process.exit(code);
  };
  process.stdout.write("", written);
  process.stderr.write("", written);
}

/** The last resort: a failure outside any command's reach is still one line, and exit 1. */
function lastResort(json: boolean) {
  return (err: unknown) => {
    console.error(errorReport(json, { kind: "refused", message: refusal(err) }));
    exitWhenWritten(1);
  };
}

export function run(argv: string[]): void {
  const last = lastResort(wantsJson(argv));
  process.on("unhandledRejection", last);
  process.on("uncaughtException", last);
  main(argv).then(exitWhenWritten, last);
}

if (require.main === module) run(process.argv.slice(2));
