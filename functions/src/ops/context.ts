/** What a command runs with: its target, its dependencies (through buildDeps), and its output. */
import { hostname, userInfo } from "node:os";
import { createInterface } from "node:readline/promises";
import { systemClock } from "../clock";
import type { Config } from "../config/config";
import type { Deps } from "../deps";
import type { Operator } from "../core/model/history";
import type { Person } from "../core/model/person";
import { errorText, type Logger } from "../logger";
import { localWakes, projectWakes, within, type Wakes } from "./mail-wakes";
import { Refusal, UsageError } from "./refusals";
import { loadSettings } from "./settings";
import type { Target } from "./target";

export interface Context {
  json: boolean;
  target: Target;
  /** The deployment's settings for the target (its env files), read and checked once. */
  config(): Config;
  /** The service's dependencies, as the functions build them; firebase-admin loads on first use. */
  deps(): Deps;
  /** The answer: `data` as JSON with --json, else `text`. */
  print(text: string, data: unknown): void;
  /** Guidance beside the answer: on stderr, so stdout stays the answer alone. */
  note(text: string): void;
  /** Who is acting, as a person's history records a change made here: the operator's login and machine. */
  actor(): Operator;
  /** The person an id or address names (core/people/operator), noted by id for the command's audit record. */
  person(who: string): Promise<Person>;
  /** The people the command reached so far, by id. */
  reached(): string[];
  /** Goes on when confirmed (--yes, or "y" at the terminal); refuses otherwise. */
  confirm(question: string): Promise<void>;
  /**
   * Lets the requests still in flight finish: the Firestore client rolls back a refused
   * transaction without waiting, and an exit before that would hold its locks until they expire.
   */
  close(): Promise<void>;
}

const stderrLog: Logger = {
  info: (m, f) => console.error(m, f ?? ""),
  warn: (m, f) => console.error(m, f ?? ""),
  error: (m, f) => console.error(m, f ?? ""),
};

async function ask(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim());
  } finally {
    rl.close();
  }
}

export function context(target: Target, options: { json: boolean; yes: boolean }): Context {
  const { json } = options;
  let config: Config | undefined;
  let wakes: Wakes | undefined;
  let deps: Deps | undefined;
  const acted = new Set<string>();
  const ctx: Context = {
    json,
    target,
    config() {
      if (!config) {
        // On the local stack its secrets too: a command that queues mail drains it here, and
        // sealed mail needs CODE_PEPPER. A real project's secrets stay in Secret Manager.
        const files = loadSettings(target, target.emulators);
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const { readConfig } = require("../config/config") as typeof import("../config/config");
        try {
          config = readConfig();
        } catch (err) {
          throw new Refusal(`the settings (${files.join(", ") || "defaults"}) are not valid: ${errorText(err)}`);
        }
      }
      return config;
    },
    deps() {
      if (!deps) {
        // Loaded on first use: `--help` and `status` never load firebase-admin; the key commands
        // load it once they have run, to write their audit record (ops/operator).
        /* eslint-disable @typescript-eslint/no-require-imports */
        const { getApps, initializeApp } = require("firebase-admin/app") as typeof import("firebase-admin/app");
        const { getFirestore } = require("firebase-admin/firestore") as typeof import("firebase-admin/firestore");
        const { getAuth } = require("firebase-admin/auth") as typeof import("firebase-admin/auth");
        const { firebaseIdentity } = require("../adapters/identity") as typeof import("../adapters/identity");
        const { smtpMailer } = require("../adapters/mailer") as typeof import("../adapters/mailer");
        const { run: mailRound } = require("../tasks/mail") as typeof import("../tasks/mail");
        const { buildDeps } = require("../deps") as typeof import("../deps");
        /* eslint-enable @typescript-eslint/no-require-imports */
        const settings = ctx.config();
        if (getApps().length === 0) initializeApp({ projectId: target.projectId });
        deps = buildDeps(settings, {
          store: getFirestore(),
          identity: firebaseIdentity(() => getAuth()),
          mailer: settings.smtp === null ? null : smtpMailer(settings.smtp),
          clock: systemClock,
          log: stderrLog,
          // Mail a command queues (an approval's notice, a file's invitations) is sent by the
          // `mail` function, woken through Cloud Tasks (ops/mail-wakes): the project's, or the
          // local stack's emulator; by this process only for a project no `mail` function serves.
          mailQueue: target.emulators
            ? (built) => (wakes = localWakes(target, () => mailRound(built), stderrLog))
            : (wakes = projectWakes(target.projectId)),
        });
      }
      return deps;
    },
    print(text, data) {
      console.log(json ? JSON.stringify(data, null, 2) : text);
    },
    note(text) {
      if (!json) console.error(text);
    },
    async confirm(question) {
      if (options.yes) return;
      if (!process.stdin.isTTY || !process.stderr.isTTY)
        throw new UsageError(`${question.replace(/\?$/, "")}: confirm with --yes (there is no terminal to ask on)`);
      if (!(await ask(question))) throw new Refusal("not confirmed; nothing changed");
    },
    actor() {
      return { kind: "operator", name: `${userInfo().username}@${hostname()}` };
    },
    async person(who) {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { findPersonByIdOrEmail } = require("../core/people/operator") as typeof import("../core/people/operator");
      const found = await findPersonByIdOrEmail(ctx.deps(), who);
      acted.add(found.id);
      return found;
    },
    reached: () => [...acted],
    async close() {
      if (!deps) return;
      const store = deps.store;
      // Mail this process sends itself (a project no `mail` function serves): within 15 s in all.
      await wakes?.settle(15_000);
      await within(
        3_000,
        store.terminate().catch(() => undefined),
      );
    },
  };
  return ctx;
}
