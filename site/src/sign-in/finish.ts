/**
 * The end of every sign-in, whichever way it began (an email code, a bridge): the custom token
 * becomes an ID token at the identity provider, the ID token a session at POST /auth/verify, and
 * the browser goes where it was going. Every refusal on the way gets a page saying why and what
 * the person can do.
 */
import { call, Unreachable } from "../shared/api";
import { idTokenFor } from "./identity-provider";
import { TRY_AGAIN, UNREACHABLE } from "../shared/messages";
import { alertBox, button, h, linkButton, paragraph, view, whileBusy, working } from "../shared/ui";
import { verifyBody } from "../shared/browser-id";
import { passkeysSupported } from "./webauthn";
import { addPasskey } from "./add-passkey";
import { passkeyToken } from "./passkey-token";
import { reopen } from "./reopen";
import { ADMINISTRATORS_USE_PASSKEYS } from "./passkey-in-place";
import type { RuleView } from "../../../functions/src/core/passkeys/passkey-view";

export interface Destination {
  /** Where to go once signed in: already checked against the allowlist. */
  redirect: string;
  /** The project POST /auth/verify checks the grant of. */
  project: string;
  /** This sign-in's page, to start again from (with its redirect, project and prompt). */
  restart: string;
}

export async function finishSignIn(customToken: string, to: Destination): Promise<void> {
  working("Signing you in", "One moment while we sign you in…");
  const exchanged = await idTokenFor(customToken);
  if (exchanged.kind === "expired")
    return failed(
      to,
      "This sign-in has expired",
      "It took too long, or the link was already used. Please sign in again.",
    );
  if (exchanged.kind === "unreachable") return failed(to, "We couldn't sign you in", UNREACHABLE);
  await openSession(exchanged.idToken, to);
}

async function openSession(idToken: string, to: Destination): Promise<void> {
  let answer;
  try {
    answer = await call("POST", "/auth/verify", verifyBody(idToken, to.project));
  } catch (err) {
    if (!(err instanceof Unreachable)) throw err;
    return failed(to, "We couldn't sign you in", UNREACHABLE);
  }
  const { body } = answer;
  if (answer.status === 200 && body.approved === true) {
    if (await offerEnrolment(to.redirect)) return;
    // replace(): Back should not return to a sign-in that is over.
    window.location.replace(to.redirect);
    return;
  }
  if (body.reason === "pending") return pending(to.restart);
  if (body.reason === "rejected") return rejected(to.restart);
  if (body.reason === "no_project_access") return noProjectAccess(idToken, to);
  if (body.reason === "phone_not_linked")
    return failed(
      to,
      "This phone number isn't on an account",
      "Sign in with your email address instead, or ask an administrator to add the number to your account.",
    );
  if (answer.status === 401) return failed(to, "This sign-in has expired", "Please sign in again.");
  return failed(to, "We couldn't sign you in", TRY_AGAIN);
}

/**
 * An administrator the passkey rule holds, signed in another way than with a passkey and who may
 * add one now (their first, in the days after they were made one; or after a recovery code, for a
 * lost one): walked through adding it, and signed in with it, before going on. True while that
 * step is shown.
 */
async function offerEnrolment(redirect: string): Promise<boolean> {
  if (!passkeysSupported()) return false;
  const mine = await call("GET", "/auth/passkeys").catch(() => null);
  const rule = mine?.status === 200 ? (mine.body.rule as RuleView | undefined) : undefined;
  if (rule === undefined || !rule.holds || rule.acts || !rule.mayAdd) return false;
  const alert = alertBox();
  const add = button("Add a passkey", { kind: "primary" });
  const go = () => window.location.replace(redirect);
  add.addEventListener("click", () => {
    alert.show(null);
    void whileBusy(add, "Waiting for your passkey…", async () => {
      const added = await addPasskey(alert, redirect);
      if (added === null) return;
      if (added.kind === "refused") return alert.show(added.message, ...(added.action ? [added.action] : []));
      const signedIn = await passkeyToken(false);
      if ("refusal" in signedIn) return alert.show(signedIn.refusal ?? TRY_AGAIN);
      const refusal = await reopen(signedIn.customToken);
      if (refusal !== null) return alert.show(refusal);
      go();
    });
  });
  view(
    "Add a passkey",
    paragraph(ADMINISTRATORS_USE_PASSKEYS),
    paragraph(
      rule.enrolBy === null
        ? "Add one now, on this device, and we'll sign you in with it."
        : `Add one now, on this device, and we'll sign you in with it. Until ${new Date(rule.enrolBy).toLocaleString()} the code you signed in with is enough to add your first; after that, only the people who run this service can help.`,
    ),
    alert.element,
    h("div", { class: "actions" }, add, button("Not now", { kind: "link", onclick: go })),
  );
  return true;
}

export function pending(restart: string): void {
  view(
    "Your account is waiting for approval",
    paragraph(
      "You've proved who you are, and your account is waiting for a reviewer. A reviewer decides who gets access.",
    ),
    paragraph("Once your account is approved, sign in again the same way. Until then there is nothing more to do."),
    linkButton("Back to sign in", restart),
  );
}

export function rejected(restart: string): void {
  view(
    "Your account wasn't approved",
    paragraph("A reviewer decided not to give this account access, so you can't sign in with it."),
    paragraph("If you think that's a mistake, contact the person who runs this site."),
    linkButton("Back to sign in", restart),
  );
}

function noProjectAccess(idToken: string, to: Destination): void {
  const account = button("Go to your account", {
    kind: "secondary",
    onclick: () =>
      void openSession(idToken, { ...to, project: "account", redirect: `${window.location.origin}/account` }),
  });
  view(
    `You don't have access to ${to.project}`,
    paragraph(
      `You've signed in, but your account hasn't been given access to ${to.project}. An administrator can add it to your account.`,
    ),
    h("div", { class: "actions" }, account, linkButton("Sign in with another account", to.restart)),
  );
}

export function failed(to: Pick<Destination, "restart">, title: string, message: string): void {
  view(title, paragraph(message), linkButton("Back to sign in", to.restart, "primary"));
}
