/**
 * The operator CLI: `npm run operator -- <command> [arguments]`. Where it works (the local stack or a
 * real project) and why: ops/target.ts, and `npm run operator -- status`.
 */
import { AppError } from "../core/errors";
import { rowFor } from "../core/errors";
import { errorText } from "../logger";
import { apiKeyCommands } from "./commands/api-keys";
import { resourceCommands } from "./commands/resources";
import { clientCommands } from "./commands/clients";
import { doctorCommand } from "./commands/doctor";
import { keyCommands } from "./commands/keys";
import { hookCommands } from "./commands/hooks";
import { peopleCommands } from "./commands/people";
import { invitationCommands } from "./commands/invitations";
import { sessionCommands } from "./commands/sessions";
import { passkeyRuleCommands } from "./commands/passkey-rule";
import { statusCommands } from "./commands/status";
import { GLOBAL_HELP, formatOf, one, parse, wantsJson, type Command } from "./cli";
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
  try {
    const { help, values, positionals } = parse(command, rest);
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
    ctx = context(target, { json: formatOf(values) === "json", yes: values.yes === true });
    if (command.backend) await ensureReachable(target);
    await command.run(ctx, positionals, values);
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof UsageError) return fail(2, "usage", err.message);
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
