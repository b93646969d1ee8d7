/**
 * Where a test stack kept running by `npm run stack:test` is: `.stack/test-stack.json`, written
 * once it is ready and removed when it stops. `npm test -- <file>` reads it to run a file against
 * that stack instead of starting one of its own.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

export interface TestStack {
  pid: number;
  /** How it starts Google's Firestore emulator (null: the stand-in), for tests that start their own. */
  firestoreLaunch: unknown;
}

const file = (root: string) => join(root, ".stack", "test-stack.json");

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

export function writeTestStack(root: string, stack: TestStack): void {
  mkdirSync(dirname(file(root)), { recursive: true });
  writeFileSync(`${file(root)}.tmp`, JSON.stringify(stack, null, 2) + "\n");
  renameSync(`${file(root)}.tmp`, file(root));
}

/** The running test stack, or null where none is (a file left by one that died is ignored). */
export function findTestStack(root: string): TestStack | null {
  if (!existsSync(file(root))) return null;
  try {
    const stack = JSON.parse(readFileSync(file(root), "utf8")) as TestStack;
    return typeof stack.pid === "number" && alive(stack.pid) ? stack : null;
  } catch {
    return null;
  }
}

export function removeTestStack(root: string): void {
  rmSync(file(root), { force: true });
}
