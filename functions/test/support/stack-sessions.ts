/** The stack's own secrets, as its functions read them: for a test that mints what they would. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { sessionTokens } from "../../src/core/sessions/session-token";
import { ID_URL, PARENT_DOMAIN } from "./deps";

/** One of the stack's local secrets (functions/.secret.local), as its functions read it. */
export function stackSecret(name: string): string {
  const secrets = readFileSync(join(__dirname, "..", "..", ".secret.local"), "utf8");
  const value = new RegExp(`^${name}='?(.*?)'?$`, "m").exec(secrets)?.[1];
  if (value === undefined) throw new Error(`no ${name} in functions/.secret.local`);
  return value;
}

/** The stack's session keys: a test mints the cookie of an older sign-in with them. */
export function stackSessionTokens() {
  return sessionTokens(stackSecret("SESSION_KEYS"), ID_URL, PARENT_DOMAIN);
}
