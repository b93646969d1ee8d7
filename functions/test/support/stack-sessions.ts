/** The stack's own secrets, as its functions read them: for a test that mints what they would. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { sessionTokens } from "../../src/core/sessions/session-token";
import { auth, ID_URL, PARENT_DOMAIN } from "./deps";
import { signInWithCustomToken } from "./auth";
import { cookieFrom } from "./people";

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

/**
 * A session cookie for the stack's own functions, as POST /auth/verify gives it: for a test's own
 * API calls. `claims` go into the custom token (`sign_in_methods`: how the sign-in began).
 */
export async function stackCookie(uid: string, claims?: Record<string, unknown>): Promise<string> {
  const idToken = await signInWithCustomToken(await auth().createCustomToken(uid, claims));
  const res = await fetch(`${process.env.STACK_ID_URL as string}/auth/verify`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ idToken, project: "account" }),
  });
  const cookie = cookieFrom(res.headers.getSetCookie());
  if (res.status !== 200 || cookie === null) throw new Error(`POST /auth/verify answered ${res.status}`);
  return cookie;
}
