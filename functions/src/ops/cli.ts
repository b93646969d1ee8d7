/** The operator CLI's commands and their arguments: every option is parsed here, in one place. */
import { parseArgs, type ParseArgsConfig } from "node:util";
import type { Context } from "./context";
import { UsageError } from "./refusals";

type Options = NonNullable<ParseArgsConfig["options"]>;

export type Values = Record<string, string | boolean | Array<string | boolean> | undefined>;

export interface Command {
  name: string;
  summary: string;
  usage: string;
  options?: Options;
  /** How many positionals: [min, max]. */
  positionals: [number, number];
  /** Reads or writes the target's Firestore or Auth: the target is checked to answer first. */
  backend?: boolean;
  /**
   * A privileged act (it changes something, or copies someone's data): each run that reached its
   * target is one record of the audit trail (core/audit), done or refused.
   */
  audited?: true;
  /** Formats beyond table and json that its answer takes (`audit`: csv, jsonl). */
  formats?: readonly string[];
  run(ctx: Context, args: string[], values: Values): Promise<void>;
}

/** The options every command takes. */
export const GLOBAL_OPTIONS: Options = {
  project: { type: "string" },
  local: { type: "boolean" },
  json: { type: "boolean" },
  format: { type: "string" },
  yes: { type: "boolean", short: "y" },
  help: { type: "boolean", short: "h" },
};

export const GLOBAL_HELP = [
  "options of every command:",
  "  --project <id>         a real project (a demo-* id: the local emulators under that id)",
  "  --local                the local stack, whatever `use` saved",
  "  --format table|json    how answers are printed (default table); --json is --format json",
  "  --yes                  confirm a destructive command without asking (scripts)",
  "  --help",
].join("\n");

export interface Parsed {
  help: boolean;
  values: Values;
  positionals: string[];
}

/**
 * An identifier may begin with "-" (a stored id made before ids stopped doing so, one in 64): a
 * token of one dash and more than one character is none of our options (the short ones, -y and
 * -h, stand alone), so it is read as the argument it is, wherever it stands.
 */
const DASHED = /^-[^-]./;

export function parse(command: Command, argv: string[]): Parsed {
  const dashed = new Map<string, string>();
  const args = argv.map((arg, i) => {
    if (!DASHED.test(arg)) return arg;
    const stand = `\u0000${i}`;
    dashed.set(stand, arg);
    return stand;
  });
  const restore = <T>(v: T): T => (typeof v === "string" ? ((dashed.get(v) as T | undefined) ?? v) : v);
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({
      args,
      options: { ...GLOBAL_OPTIONS, ...command.options },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    // parseArgs' own refusals (unknown option, missing value) are usage errors too.
    throw new UsageError(`${command.name}: ${(err as Error).message}`);
  }
  const values: Values = Object.fromEntries(
    Object.entries(parsed.values).map(([k, v]) => [k, Array.isArray(v) ? v.map(restore) : restore(v)]),
  );
  const positionals = parsed.positionals.map(restore);
  if (values.help) return { help: true, values, positionals };
  const [min, max] = command.positionals;
  if (positionals.length < min) throw new UsageError(`${command.name}: missing arguments`);
  if (positionals.length > max) throw new UsageError(`${command.name}: unexpected argument "${positionals[max]}"`);
  formatOf(values, command.formats);
  return { help: false, values, positionals };
}

/** `--json` or `--format json|table` (or one of the command's own formats, which answers as a table does to the rest). */
export function formatOf(values: Values, own: readonly string[] = []): "json" | "table" {
  const format = one(values, "format");
  const known = ["table", "json", ...own];
  if (format !== undefined && !known.includes(format))
    throw new UsageError(`--format must be ${known.slice(0, -1).join(", ")} or ${known.at(-1)}, not "${format}"`);
  return values.json === true || format === "json" ? "json" : "table";
}

/**
 * Whether the answer should be JSON, read from the raw arguments: an error found before (or while)
 * the arguments are parsed is still reported in the format asked for.
 */
export function wantsJson(argv: string[]): boolean {
  return argv.some((a, i) => a === "--json" || a === "--format=json" || (a === "--format" && argv[i + 1] === "json"));
}

/** `24h`, `90m`, `7d`, `30s` in milliseconds. */
export function parseDuration(value: string): number {
  const match = /^(\d+)(s|m|h|d)$/.exec(value);
  if (!match) throw new UsageError(`"${value}" is not a duration (e.g. 30m, 24h, 7d)`);
  const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] as "s" | "m" | "h" | "d"];
  return Number(match[1]) * unit;
}

export function one(values: Record<string, unknown>, name: string): string | undefined {
  const v = values[name];
  return typeof v === "string" ? v : undefined;
}

export function many(values: Record<string, unknown>, name: string): string[] {
  const v = values[name];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}
