/**
 * One passkey sign-in up to the service's custom token (options, the browser's ceremony, the
 * service's verdict), for every place that signs in with a passkey: the sign-in page, and a fresh
 * sign-in asked for in place (step-up, the passkey rule).
 */
import { call, Unreachable, type Answer } from "../shared/api";
import { TRY_AGAIN, UNREACHABLE } from "../shared/messages";
import { ceremonyEnd, webauthn } from "./webauthn";

/** What a passkey sign-in came to, when it did not sign the person in: null when there is nothing to say. */
export type RefusalWords = string | null;

/** Why POST /auth/passkeys/sign-in/verify refused, as the person should hear it. */
export function passkeyRefusal(answer: Pick<Answer, "status">): string {
  if (answer.status === 400) return "That took too long, or was started in another window. Please try again.";
  if (answer.status === 401)
    return "That passkey wasn't accepted. It may have been removed from your account. Try another passkey, or sign in with your email address.";
  return TRY_AGAIN;
}

/**
 * One passkey sign-in up to the service's custom token: options, the browser's ceremony, the
 * service's verdict. `autofill`: the ceremony waits for the person to pick a passkey in the email
 * field's autofill, and a prompt they close says nothing.
 */
export async function passkeyToken(autofill: boolean): Promise<{ customToken: string } | { refusal: RefusalWords }> {
  try {
    const options = await call("POST", "/auth/passkeys/sign-in/options", {});
    if (options.status !== 200) return { refusal: autofill ? null : TRY_AGAIN };
    const { startAuthentication } = await webauthn();
    let credential;
    try {
      credential = await startAuthentication({
        optionsJSON: options.body.options as never,
        useBrowserAutofill: autofill,
      });
    } catch (err) {
      const end = ceremonyEnd(err);
      if (autofill || end === "superseded") return { refusal: null };
      return {
        refusal:
          end === "cancelled"
            ? "Signing in with a passkey was cancelled, or it took too long. Try again, or use your email address."
            : "This browser couldn't use a passkey just now. Try again, or use your email address.",
      };
    }
    const answer = await call("POST", "/auth/passkeys/sign-in/verify", { credential });
    if (answer.status !== 200 || typeof answer.body.customToken !== "string")
      return { refusal: passkeyRefusal(answer) };
    return { customToken: answer.body.customToken };
  } catch (err) {
    if (!(err instanceof Unreachable)) throw err;
    return { refusal: UNREACHABLE };
  }
}
