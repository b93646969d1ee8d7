/**
 * A new session for the custom token of a fresh sign-in made in place (an email code, a passkey),
 * without leaving the page: the identity provider's ID token for it, then POST /auth/verify.
 */
import { call, Unreachable } from "../shared/api";
import { idTokenFor } from "./identity-provider";
import { TRY_AGAIN, UNREACHABLE } from "../shared/messages";
import { verifyBody } from "../shared/browser-id";

/** Null once the new session is open; else what to tell the person. */
export async function reopen(customToken: string): Promise<string | null> {
  const exchanged = await idTokenFor(customToken);
  if (exchanged.kind === "expired") return "That took too long. Please ask for a new code.";
  if (exchanged.kind === "unreachable") return UNREACHABLE;
  try {
    const answer = await call("POST", "/auth/verify", verifyBody(exchanged.idToken, "account"));
    return answer.status === 200 && answer.body.approved === true ? null : TRY_AGAIN;
  } catch (err) {
    if (!(err instanceof Unreachable)) throw err;
    return UNREACHABLE;
  }
}
