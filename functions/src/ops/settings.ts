/**
 * The deployment's settings as the Firebase CLI reads them for the target: `functions/.env`, then
 * `.env.<project>`, and on the emulators `.env.local` (and, for secrets, `.secret.local`). Values
 * go into this process's environment, where the functions read them too (config/config.ts); a value
 * already in the environment wins. None is ever printed.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./local-stack";
import type { Target } from "./target";

export const FUNCTIONS_DIR = join(ROOT, "functions");
/** The local stack's secrets (tools/stack/files.ts makes them). */
export const LOCAL_SECRETS = join(FUNCTIONS_DIR, ".secret.local");

/** NAME=value lines of a dotenv-style file, unquoted. */
export function envFile(path: string): Record<string, string> {
  if (!existsSync(path)) return {};
  const out: Record<string, string> = {};
  for (const line of readFileSync(path, "utf8").split("\n")) {
    const eq = line.indexOf("=");
    if (eq <= 0 || line.trimStart().startsWith("#")) continue;
    const raw = line.slice(eq + 1).trim();
    out[line.slice(0, eq).trim()] = /^'.*'$/s.test(raw) || /^".*"$/s.test(raw) ? raw.slice(1, -1) : raw;
  }
  return out;
}

/** The files the Firebase CLI reads for this target, in its order. */
export function settingsFiles(target: Target, secrets: boolean): string[] {
  const files = [".env", `.env.${target.projectId}`];
  if (target.emulators) files.push(".env.local");
  if (target.emulators && secrets) files.push(".secret.local");
  return files.map((f) => join(FUNCTIONS_DIR, f));
}

/** Loads the target's settings into the environment; returns the files that were there. */
export function loadSettings(target: Target, secrets: boolean): string[] {
  const files = settingsFiles(target, secrets).filter((f) => existsSync(f));
  for (const file of files) for (const [name, value] of Object.entries(envFile(file))) process.env[name] ??= value;
  return files;
}
