/**
 * The one place a running stack's location is written, whole and renamed into place once the
 * stack is ready, and removed when it stops:
 * - `.stack/local-stack.json`, the dev stack's, which the operator CLI reads
 *   (functions/src/ops/local-stack.ts) so that `npm run operator` finds a stack on any ports;
 * - `.stack/test-stack.json`, a test stack kept running by `npm run stack:test`, which
 *   `npm test -- <file>` reads to run a file against it instead of starting one of its own.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { idSitePort, type Profile } from "./ports.ts";

export const locationFile = (root: string) => join(root, ".stack", "local-stack.json");
const testStackFile = (root: string) => join(root, ".stack", "test-stack.json");

/** Written to a temporary file and renamed into place: a reader never finds half of it. */
function writeWhole(file: string, value: unknown): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(`${file}.tmp`, JSON.stringify(value, null, 2) + "\n");
  renameSync(`${file}.tmp`, file);
}

/** Every address of the stack, by what it is (the CLI's `status` prints them as they are). */
export function stackUrls(p: Profile, parentDomain: string): Record<string, string> {
  const at = (port: number) => `http://127.0.0.1:${port}`;
  return {
    service: at(p.hosting),
    id: at(idSitePort(p)),
    functions: at(p.functions),
    auth: at(p.auth),
    firestore: `127.0.0.1:${p.firestore}`,
    mail: at(p.mailWeb),
    smtp: `127.0.0.1:${p.smtp}`,
    https: `https://${parentDomain}, https://id.${parentDomain}, https://<app>.${parentDomain} at 127.0.0.1:${p.https}`,
    gaming: `${at(p.gaming)}/openid/login`,
    federated: at(p.federated),
    hooks: `${at(p.hookInbox)}/`,
    hub: at(p.hub),
    tasks: `127.0.0.1:${p.tasks}`,
  };
}

export function writeLocation(
  root: string,
  p: Profile,
  firestore: { kind: "stand-in" | "official"; why: string },
  parentDomain: string,
) {
  const file = locationFile(root);
  const location = {
    project: p.projectId,
    pid: process.pid,
    startedAt: new Date().toISOString(),
    firestore: firestore.kind,
    firestoreWhy: firestore.why,
    ports: {
      hosting: p.hosting,
      idSite: idSitePort(p),
      functions: p.functions,
      auth: p.auth,
      firestore: p.firestore,
      hub: p.hub,
      logging: p.logging,
      tasks: p.tasks,
      smtp: p.smtp,
      mailWeb: p.mailWeb,
      gaming: p.gaming,
      federated: p.federated,
      hookInbox: p.hookInbox,
      https: p.https,
    },
    urls: stackUrls(p, parentDomain),
  };
  writeWhole(file, location);
}

/** Removes the file if this process wrote it (another stack of this checkout may have since). */
export function removeLocation(root: string): void {
  const file = locationFile(root);
  try {
    if (existsSync(file) && (JSON.parse(readFileSync(file, "utf8")) as { pid?: number }).pid === process.pid)
      rmSync(file, { force: true });
  } catch {
    // Unreadable: not ours to judge; the CLI ignores a file whose process is gone.
  }
}

export interface TestStack {
  pid: number;
  /** How it starts Google's Firestore emulator (null: the stand-in), for tests that start their own. */
  firestoreLaunch: unknown;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

export function writeTestStack(root: string, stack: TestStack): void {
  writeWhole(testStackFile(root), stack);
}

/** The running test stack, or null where none is (a file left by one that died is ignored). */
export function findTestStack(root: string): TestStack | null {
  if (!existsSync(testStackFile(root))) return null;
  try {
    const stack = JSON.parse(readFileSync(testStackFile(root), "utf8")) as TestStack;
    return typeof stack.pid === "number" && alive(stack.pid) ? stack : null;
  } catch {
    return null;
  }
}

export function removeTestStack(root: string): void {
  rmSync(testStackFile(root), { force: true });
}
