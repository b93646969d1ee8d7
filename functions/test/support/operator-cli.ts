/** The operator CLI (npm run operator), run as the operator runs it: the compiled entry, in a process of its own. */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { initializeApp } from "firebase-admin/app";
import { getFirestore } from "firebase-admin/firestore";

const ENTRY = join(__dirname, "..", "..", "lib", "ops", "operator.js");

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `env` adds to the suite's environment; a variable set to undefined is left out. */
export function operator(
  args: string[],
  env: Record<string, string | undefined> = {},
  options: { entry?: string; cwd?: string; base?: NodeJS.ProcessEnv } = {},
): Promise<Run> {
  const merged = Object.fromEntries(
    Object.entries({ ...(options.base ?? process.env), ...env }).filter(([, v]) => v !== undefined),
  ) as NodeJS.ProcessEnv;
  return new Promise((resolve) => {
    const entry = options.entry ?? ENTRY;
    execFile(process.execPath, [entry, ...args], { env: merged, cwd: options.cwd }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === "number" ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

export async function operatorJson<T = Record<string, unknown>>(
  args: string[],
  env: Record<string, string | undefined> = {},
  options: Parameters<typeof operator>[2] = {},
): Promise<T> {
  const run = await operator([...args, "--json"], env, options);
  if (run.code !== 0) throw new Error(`operator ${args.join(" ")} exited ${run.code}: ${run.stderr}`);
  return JSON.parse(run.stdout) as T;
}

/** A project of its own on the emulators: an empty database, as a fresh deployment has. */
export function freshProject() {
  const projectId = `demo-boot-${randomBytes(4).toString("hex")}`;
  const db = getFirestore(initializeApp({ projectId }, projectId));
  return { env: { GCLOUD_PROJECT: projectId }, db, projectId };
}

/** No stack trace: no line of the form "    at f (file:1:2)". */
export const STACK_TRACE = /\n\s+at .+[:(]/;
