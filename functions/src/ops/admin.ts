/**
 * The operator CLI: `npm run admin -- <command> [--project <id>] [--json]`. Without --project it
 * works against the local emulators (the `npm start` stack, or the hosts already in the
 * environment); with it, against that project through Application Default Credentials.
 */
import { AppError } from "../core/errors";
import { AdminExistsError } from "../core/people/operator";
import { ClientExistsError, UnknownClientError } from "../core/oidc/clients";
import { errorText } from "../logger";
import { apiKeyCommands, secretCommands } from "./admin-keys";
import { clientCommands } from "./admin-clients";
import { doctorCommand } from "./admin-doctor";
import { peopleCommands } from "./admin-people";
import { UsageError, context, parse, type Command } from "./cli";

const COMMANDS: Command[] = [...peopleCommands, ...clientCommands, ...apiKeyCommands, ...secretCommands, doctorCommand];

const GLOBAL_HELP = "options of every command: --project <id> (a real project; default: the emulators), --json, --help";

function overview(): string {
  return [
    "usage: npm run admin -- <command> [arguments] [--project <id>] [--json]",
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

/** Refusals the operator can act on: their message (an AppError's detail, or its code), no stack. */
function refusal(err: unknown): string {
  if (err instanceof AppError) return err.detail ?? err.code;
  if ([AdminExistsError, ClientExistsError, UnknownClientError].some((k) => err instanceof k))
    return (err as Error).message;
  return errorText(err);
}

export async function main(argv: string[]): Promise<number> {
  if (argv.length === 0 || argv[0] === "--help" || argv[0] === "-h" || argv[0] === "help") {
    console.log(overview());
    return argv.length === 0 ? 2 : 0;
  }
  const found = find(argv);
  if (!found) {
    console.error(`unknown command "${argv.slice(0, 2).join(" ")}"\n\n${overview()}`);
    return 2;
  }
  const { command, rest } = found;
  try {
    const { help, values, positionals } = parse(command, rest);
    if (help) {
      console.log(`usage: npm run admin -- ${command.usage}\n\n${command.summary}\n${GLOBAL_HELP}`);
      return 0;
    }
    await command.run(context(values), positionals, values);
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`${err.message}\nusage: npm run admin -- ${command.usage}`);
      return 2;
    }
    console.error(`${command.name}: ${refusal(err)}`);
    return 1;
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(errorText(err));
      process.exit(1);
    },
  );
}
