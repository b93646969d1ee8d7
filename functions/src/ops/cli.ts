/** The operator CLI's plumbing: commands, their arguments, where they run, what they print. */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { getApps, initializeApp } from "firebase-admin/app";
import { getAuth } from "firebase-admin/auth";
import { getFirestore } from "firebase-admin/firestore";
import { firebaseIdentity } from "../adapters/identity";
import { systemClock } from "../clock";
import type { Deps } from "../core/deps";
import { personCache } from "../core/people/person-cache";
import { clientCache } from "../core/oidc/clients";
import type { Logger } from "../logger";
import { cryptoRandom } from "../random";
import { transactionRunner } from "../store/db";

/** Bad arguments: the usage is printed and the exit code is 2. */
export class UsageError extends Error {}

/** The local `npm start` stack (docs/local-stack.md): used unless --project names a real one. */
export const DEV_STACK = { projectId: "demo-identity", firestore: "127.0.0.1:8080", auth: "127.0.0.1:9099" };

export type OperatorDeps = Pick<
  Deps,
  "store" | "clock" | "random" | "transaction" | "identity" | "people" | "clients" | "log"
>;

export interface Context {
  json: boolean;
  /** Where the command runs: a real project, or the emulators. */
  target: { projectId: string; emulators: boolean };
  deps(): OperatorDeps;
  /** The answer: `data` as JSON with --json, else `text`. */
  print(text: string, data: unknown): void;
  /** Guidance beside the answer: on stderr, so stdout stays the answer alone. */
  note(text: string): void;
}

type Options = NonNullable<ParseArgsConfig["options"]>;

type Values = Record<string, string | boolean | Array<string | boolean> | undefined>;

export interface Command {
  name: string;
  summary: string;
  usage: string;
  options?: Options;
  /** How many positionals: [min, max]. */
  positionals: [number, number];
  run(ctx: Context, args: string[], values: Values): Promise<void>;
}

/** The options every command takes. */
export const GLOBAL_OPTIONS: Options = {
  project: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
};

export function parse(command: Command, argv: string[]) {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      options: { ...GLOBAL_OPTIONS, ...command.options },
      allowPositionals: true,
      strict: true,
    });
    if (values.help) return { help: true as const, values, positionals };
    const [min, max] = command.positionals;
    if (positionals.length < min) throw new UsageError(`${command.name}: missing arguments`);
    if (positionals.length > max) throw new UsageError(`${command.name}: unexpected argument "${positionals[max]}"`);
    return { help: false as const, values, positionals };
  } catch (err) {
    if (err instanceof UsageError) throw err;
    // parseArgs' own refusals (unknown option, missing value) are usage errors too.
    throw new UsageError(`${command.name}: ${(err as Error).message}`);
  }
}

const stderrLog: Logger = {
  info: (m, f) => console.error(m, f ?? ""),
  warn: (m, f) => console.error(m, f ?? ""),
  error: (m, f) => console.error(m, f ?? ""),
};

export function context(values: {
  project?: string | boolean | string[];
  json?: string | boolean | string[];
}): Context {
  const project = typeof values.project === "string" ? values.project : undefined;
  if (values.project !== undefined && (project === undefined || !/^[a-z][a-z0-9-]{4,29}$/.test(project)))
    throw new UsageError(`--project needs a project id, not "${String(values.project)}"`);
  let target: Context["target"];
  if (project !== undefined) {
    // A real project, through Application Default Credentials: never the emulators.
    delete process.env.FIRESTORE_EMULATOR_HOST;
    delete process.env.FIREBASE_AUTH_EMULATOR_HOST;
    target = { projectId: project, emulators: false };
  } else {
    process.env.FIRESTORE_EMULATOR_HOST ??= DEV_STACK.firestore;
    process.env.FIREBASE_AUTH_EMULATOR_HOST ??= DEV_STACK.auth;
    target = { projectId: process.env.GCLOUD_PROJECT ?? DEV_STACK.projectId, emulators: true };
  }
  const json = values.json === true;
  let built: OperatorDeps | undefined;
  return {
    json,
    target,
    deps() {
      if (!built) {
        if (getApps().length === 0) initializeApp({ projectId: target.projectId });
        const store = getFirestore();
        built = {
          store,
          clock: systemClock,
          random: cryptoRandom,
          transaction: transactionRunner(store),
          identity: firebaseIdentity(() => getAuth()),
          people: personCache(systemClock, 0),
          clients: clientCache(systemClock, 0),
          log: stderrLog,
        };
      }
      return built;
    },
    print(text, data) {
      console.log(json ? JSON.stringify(data, null, 2) : text);
    },
    note(text) {
      if (!json) console.error(text);
    },
  };
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
