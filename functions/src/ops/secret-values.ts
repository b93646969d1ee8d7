/**
 * Where the key commands read a secret's current value and put the next one: a file the operator
 * names, or, on the local stack, functions/.secret.local itself, applied to the running functions.
 */
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import type { Context } from "./context";
import { Refusal, UsageError } from "./refusals";
import { LOCAL_SECRETS } from "./settings";

function unquote(raw: string): string {
  // .secret.local quotes values that hold JSON.
  return /^'.*'$/s.test(raw) || /^".*"$/s.test(raw) ? raw.slice(1, -1) : raw;
}

/**
 * The secret's current value: from --from-file (the bare value, or a .secret.local-style file
 * with a NAME= line), or, against the emulators, from functions/.secret.local.
 */
export function currentValue(ctx: Context, name: string, fromFile: string | undefined): string {
  const file = fromFile ?? (ctx.target.emulators ? LOCAL_SECRETS : undefined);
  if (file === undefined)
    throw new UsageError(
      `give the current ${name} with --from-file <file> (npx firebase functions:secrets:access ${name} --project ${ctx.target.projectId} > current.txt)`,
    );
  if (!existsSync(file)) throw new UsageError(`${file} does not exist`);
  const text = readFileSync(file, "utf8");
  const line = text.split("\n").find((l) => l.startsWith(`${name}=`));
  return unquote(line === undefined ? text.trim() : line.slice(name.length + 1).trim());
}

/** Written whole beside the target, readable by its owner only, then renamed over it. */
export function writePrivately(path: string, text: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, path);
}

/** functions/.secret.local with `name` set to `value` (quoted as the stack writes JSON). */
export function setLocalSecret(name: string, value: string): void {
  const lines = existsSync(LOCAL_SECRETS) ? readFileSync(LOCAL_SECRETS, "utf8").split("\n") : [];
  const kept = lines.filter((l) => l.trim() !== "" && !l.startsWith(`${name}=`));
  const quoted = value.includes("'") ? JSON.stringify(value) : `'${value}'`;
  writePrivately(LOCAL_SECRETS, [...kept, `${name}=${quoted}`].join("\n") + "\n");
}

/**
 * Has the running local stack's Functions emulator load its functions again (the hub's reload,
 * which also retires the workers): each function reads the secrets again at its next request.
 */
export async function reloadLocalFunctions(ctx: Context): Promise<void> {
  const stack = ctx.target.stack;
  if (stack === null) throw new Refusal("no running local stack to apply it to: start one with `npm start`");
  const res = await fetch(`http://127.0.0.1:${stack.ports.hub}/functions/enableBackgroundTriggers`, {
    method: "PUT",
    signal: AbortSignal.timeout(60_000),
  });
  await res.arrayBuffer();
  if (!res.ok) throw new Refusal(`the local Functions emulator did not reload (HTTP ${res.status})`);
}

/** Waits until `check` holds (polling every half second), up to `ms`; returns the seconds it took. */
export async function within(ms: number, check: () => Promise<boolean>): Promise<number | null> {
  const started = performance.now();
  while (performance.now() - started < ms) {
    if (await check().catch(() => false)) return Math.round((performance.now() - started) / 100) / 10;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return null;
}
