/**
 * Adding a passkey to the signed-in person's account, as the account page and the request for a
 * passkey in place both do it: options, the browser's ceremony, the service's verdict, and what
 * to tell the person when it does not end in a new passkey.
 */
import { ask, type Answer, type Notice } from "../shared/api";
import { says, TRY_AGAIN } from "../shared/messages";
import { linkButton } from "../shared/ui";
import { ceremonyEnd, webauthn } from "./webauthn";
import { PAST_STEP_UP } from "../../../functions/src/core/model/step-up";

export type Added = { kind: "added"; id: string; name: string } | { kind: "refused"; message: string; action?: Node };

/** A name for a new passkey that says where it was made; the person can rename it. */
export function suggestedName(platform: string): string {
  const known = ["Android", "ChromeOS", "iOS", "iPadOS", "Linux", "macOS", "Windows"];
  const found = known.find((p) => platform.toLowerCase().startsWith(p.toLowerCase()));
  const mac = platform.startsWith("Mac") ? "macOS" : platform.startsWith("Win") ? "Windows" : undefined;
  const where = found ?? mac;
  return where === undefined ? "Passkey" : `Passkey on ${where}`;
}

function platformName(): string {
  const data = (navigator as Navigator & { userAgentData?: { platform?: string } }).userAgentData;
  return data?.platform ?? navigator.platform ?? "";
}

/**
 * A change to the person's passkeys refused for a sign-in over five minutes old (`401
 * sign_in_too_old`): what they hear, and the way to sign in again and come back to `back`.
 */
export function signInAgainTo(what: string, back: string): { message: string; action: Node } {
  return {
    message: `To ${what}, please sign in again first: it has been ${PAST_STEP_UP} since you signed in.`,
    action: linkButton("Sign in again", `/?prompt=login&redirect=${encodeURIComponent(back)}`, "primary"),
  };
}

/** Whether the service refused for a sign-in too old for what was asked. */
export const signInTooOld = (answer: Answer): boolean => answer.status === 401 && says(answer, "sign_in_too_old");

/** Why adding a passkey went wrong, as the person should hear it; the sign-in link when it is too late. */
export function addRefusal(answer: Answer, back: string): { message: string; action?: Node } {
  if (signInTooOld(answer)) return signInAgainTo("add a passkey", back);
  if (answer.status === 403 && says(answer, "passkey_required"))
    return {
      message:
        "Administrators add a passkey from a sign-in with one of their passkeys or a recovery code: an emailed code alone is not enough once the first one is on the account.",
    };
  if (answer.status === 409)
    return { message: "This passkey is already on your account, or you have as many as an account may hold." };
  if (answer.status === 400) return { message: "That passkey couldn't be added. Please try again." };
  return { message: TRY_AGAIN };
}

/** Adds a passkey made by this browser's authenticator; null once `notice` said the service is unreachable, or nothing is to be said. */
export async function addPasskey(notice: Notice, back: string): Promise<Added | null> {
  const options = await ask(notice, "POST", "/auth/passkeys/register/options", {});
  if (options === null) return null;
  if (options.status !== 200) return { kind: "refused", ...addRefusal(options, back) };
  const { startRegistration } = await webauthn();
  let credential;
  try {
    credential = await startRegistration({ optionsJSON: options.body.options as never });
  } catch (err) {
    const end = ceremonyEnd(err);
    if (end === "superseded") return null;
    return {
      kind: "refused",
      message:
        end === "duplicate"
          ? "This device already has a passkey for your account."
          : end === "cancelled"
            ? "Adding a passkey was cancelled, or it took too long."
            : "This browser couldn't make a passkey just now. Please try again.",
    };
  }
  const name = suggestedName(platformName());
  const answer = await ask(notice, "POST", "/auth/passkeys/register/verify", { credential, name });
  if (answer === null) return null;
  if (answer.status !== 201) return { kind: "refused", ...addRefusal(answer, back) };
  return { kind: "added", id: String(answer.body.id), name };
}
