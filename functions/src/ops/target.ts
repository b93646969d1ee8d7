/**
 * Which backend a command works against, and which setting chose it, most explicit first:
 * `--project`, `--local`, emulator hosts in the environment, the default saved by `use`, the
 * running local stack (its location file), and last the local stack's default ports.
 */
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { checkCredentials } from "./credentials";
import { listening } from "./probes";
import { Refusal, UsageError } from "./refusals";
import { ROOT, shown, STACK_FILE, type LocalStack, type StackFinding } from "./local-stack";

/** npm start's project and ports (docs/local-stack.md), when no running stack says otherwise. */
export const DEV_STACK = {
  projectId: "demo-identity",
  firestore: "127.0.0.1:8080",
  auth: "127.0.0.1:9099",
  tasks: "127.0.0.1:9499",
};
/** Where `use <project>` keeps the default target of this checkout. */
export const SAVED_TARGET = join(ROOT, ".admin.json");

export interface Target {
  projectId: string;
  /** The local emulators (Firestore and Auth at these hosts), or a real project through ADC. */
  emulators: boolean;
  firestore: string | null;
  auth: string | null;
  /**
   * The Cloud Tasks emulator of the local stack, through which a command wakes the stack's `mail`
   * function for the mail it queued; null for a real project (its own Cloud Tasks), or where the
   * environment names emulators but none for tasks.
   */
  tasks: string | null;
  /** Which setting chose this target, in words. */
  chosenBy: string;
  stack: LocalStack | null;
  /** Every setting that could have chosen it, most explicit first, as it was found. */
  considered: Array<{ setting: string; value: string | null }>;
}

export interface TargetInputs {
  project: string | undefined;
  local: boolean;
  env: Record<string, string | undefined>;
  saved: string | null;
  stack: StackFinding;
}

const PROJECT_ID = /^[a-z][a-z0-9-]{4,28}[a-z0-9]$/;

export function projectId(value: string): string {
  if (!PROJECT_ID.test(value)) throw new UsageError(`--project needs a project id, not "${value}"`);
  return value;
}

function considered(inputs: TargetInputs): Target["considered"] {
  const { stack } = inputs;
  return [
    { setting: "--project", value: inputs.project ?? null },
    { setting: "--local", value: inputs.local ? "given" : null },
    { setting: "FIRESTORE_EMULATOR_HOST", value: inputs.env.FIRESTORE_EMULATOR_HOST || null },
    { setting: "FIREBASE_AUTH_EMULATOR_HOST", value: inputs.env.FIREBASE_AUTH_EMULATOR_HOST || null },
    { setting: `saved default (${shown(SAVED_TARGET)})`, value: inputs.saved },
    {
      setting: `local stack (${shown(STACK_FILE)})`,
      value: stack === null ? null : "stack" in stack ? `running, process ${stack.stack.pid}` : stack.gone,
    },
  ];
}

function production(inputs: TargetInputs, projectId: string, chosenBy: string): Target {
  return {
    projectId,
    emulators: false,
    firestore: null,
    auth: null,
    tasks: null,
    chosenBy,
    stack: null,
    considered: considered(inputs),
  };
}

function local(inputs: TargetInputs, chosenBy: string, project?: string): Target {
  const { env, stack } = inputs;
  const running = stack !== null && "stack" in stack ? stack.stack : null;
  const fromEnv = env.FIRESTORE_EMULATOR_HOST !== undefined && env.FIRESTORE_EMULATOR_HOST !== "";
  const at = (p: number | undefined, fallback: string) => (p === undefined ? fallback : `127.0.0.1:${p}`);
  const where = running
    ? `the running local stack (${shown(STACK_FILE)})`
    : `no local stack is running (${stack !== null && "gone" in stack ? stack.gone : `no ${shown(STACK_FILE)}`}): npm start's default ports`;
  const why = chosenBy === "" ? where : fromEnv ? chosenBy : `${chosenBy}, at ${where}`;
  return {
    projectId: project ?? (fromEnv ? env.GCLOUD_PROJECT : undefined) ?? running?.project ?? DEV_STACK.projectId,
    emulators: true,
    firestore: (fromEnv ? env.FIRESTORE_EMULATOR_HOST : undefined) ?? at(running?.ports.firestore, DEV_STACK.firestore),
    auth: (fromEnv ? env.FIREBASE_AUTH_EMULATOR_HOST : undefined) ?? at(running?.ports.auth, DEV_STACK.auth),
    // Emulators named by the environment name their Cloud Tasks emulator there too (as the test
    // suite and `firebase emulators:exec` do), or have none.
    tasks: fromEnv ? env.CLOUD_TASKS_EMULATOR_HOST || null : at(running?.ports.tasks, DEV_STACK.tasks),
    chosenBy: why,
    stack: running,
    considered: considered(inputs),
  };
}

export function resolveTarget(inputs: TargetInputs): Target {
  if (inputs.project !== undefined) {
    const id = projectId(inputs.project);
    // A demo- project can reach no real backend (Firebase's rule): it names the emulators.
    if (id.startsWith("demo-")) return local(inputs, `--project ${id}: a demo project, on the local emulators`, id);
    return production(inputs, id, "--project");
  }
  if (inputs.local) return local(inputs, "--local");
  if (inputs.env.FIRESTORE_EMULATOR_HOST) return local(inputs, "FIRESTORE_EMULATOR_HOST in the environment");
  if (inputs.saved !== null) {
    const chosenBy = `the default saved with \`use\` (${shown(SAVED_TARGET)})`;
    return inputs.saved.startsWith("demo-")
      ? local(inputs, chosenBy, inputs.saved)
      : production(inputs, inputs.saved, chosenBy);
  }
  return local(inputs, "");
}

export function readSavedTarget(): string | null {
  if (!existsSync(SAVED_TARGET)) return null;
  try {
    const project = (JSON.parse(readFileSync(SAVED_TARGET, "utf8")) as { project?: unknown }).project;
    return typeof project === "string" && PROJECT_ID.test(project) ? project : null;
  } catch {
    return null;
  }
}

/** Saves (or, with null, forgets) the default target: written whole, then renamed into place. */
export function saveTarget(project: string | null): void {
  if (project === null) return rmSync(SAVED_TARGET, { force: true });
  writeFileSync(`${shown(SAVED_TARGET)}.tmp`, JSON.stringify({ project }, null, 2) + "\n");
  renameSync(`${shown(SAVED_TARGET)}.tmp`, SAVED_TARGET);
}

/** Points this process's client libraries at the target, before any of them loads. */
export function applyTarget(target: Target): void {
  const env = process.env;
  if (target.emulators) {
    env.FIRESTORE_EMULATOR_HOST = target.firestore ?? DEV_STACK.firestore;
    env.FIREBASE_AUTH_EMULATOR_HOST = target.auth ?? DEV_STACK.auth;
    env.GCLOUD_PROJECT = target.projectId;
    // The admin SDK's task queues go to the stack's Cloud Tasks emulator (adapters/mail-queue).
    if (target.tasks === null) delete env.CLOUD_TASKS_EMULATOR_HOST;
    else env.CLOUD_TASKS_EMULATOR_HOST = target.tasks;
    // Nothing local runs on Google Cloud: no probe of a metadata server (and no warning about it).
    env.METADATA_SERVER_DETECTION ??= "none";
    return;
  }
  delete env.FIRESTORE_EMULATOR_HOST;
  delete env.FIREBASE_AUTH_EMULATOR_HOST;
  // A real project's wakes go to its own Cloud Tasks, never to an emulator a shell names.
  delete env.CLOUD_TASKS_EMULATOR_HOST;
  // On Google Cloud the BIOS says so; elsewhere nothing is probed over the network.
  env.METADATA_SERVER_DETECTION ??= "bios-only";
  // A person's credentials bill the Auth API to a quota project: the one worked on.
  env.GOOGLE_CLOUD_QUOTA_PROJECT ??= target.projectId;
}

/**
 * Fails at once, with what to do, where the client libraries would retry for a minute: no
 * emulator at the target's address, or no credentials for a real project.
 */
export async function ensureReachable(target: Target): Promise<void> {
  if (!target.emulators) {
    const problem = await checkCredentials(target.projectId);
    if (problem !== null) throw new Refusal(problem);
    return;
  }
  // Firestore answers or nothing does: Auth is part of the same stack, and its calls fail fast.
  const at = target.firestore;
  if (
    at !== null &&
    !(await listening(at).then(
      () => true,
      () => false,
    ))
  )
    throw new Refusal(
      `nothing answers at ${at} (Firestore; target chosen by ${target.chosenBy}): start the local stack with \`npm start\`, or name a project with --project <id>`,
    );
}
