/**
 * Where the running local stack is: `npm start` writes `.stack/local-stack.json` when it is ready
 * (tools/stack/location.ts, the one writer) and removes it when it stops; this is the one reader.
 */
import { existsSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { z } from "zod";

/** The checkout's root (this file is functions/src/ops or, compiled, functions/lib/ops). */
export const ROOT = join(__dirname, "..", "..", "..");
export const STACK_FILE = join(ROOT, ".stack", "local-stack.json");

/** A path of this checkout as the operator reads it: from the checkout's root. */
export const shown = (path: string) => relative(ROOT, path);

const port = z.number().int().min(1).max(65535);

const stackSchema = z.object({
  project: z.string().min(1),
  pid: z.number().int().positive(),
  startedAt: z.string(),
  firestore: z.enum(["stand-in", "official"]),
  /** Which copy of the emulator, and why that one (tools/stack/firestore.ts). */
  firestoreWhy: z.string().optional(),
  ports: z.object({ firestore: port, auth: port, hub: port, hosting: port }).catchall(port),
  /** Every address the stack serves, by what it is: printed as they are by `status`. */
  urls: z.record(z.string(), z.string()),
});

export type LocalStack = z.infer<typeof stackSchema>;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists, under another user.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

export type StackFinding = { stack: LocalStack } | { gone: string } | null;

/** The running stack, or why the file there names none (null: no file). */
export function findLocalStack(file = STACK_FILE): StackFinding {
  if (!existsSync(file)) return null;
  let parsed;
  try {
    parsed = stackSchema.safeParse(JSON.parse(readFileSync(file, "utf8")));
  } catch {
    return { gone: `${shown(file)} is not JSON` };
  }
  if (!parsed.success) return { gone: `${shown(file)} is not a stack location this CLI reads` };
  if (!alive(parsed.data.pid))
    return { gone: `the stack that wrote ${shown(file)} (process ${parsed.data.pid}) is no longer running` };
  return { stack: parsed.data };
}
