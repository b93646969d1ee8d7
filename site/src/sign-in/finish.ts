/**
 * The end of every sign-in, whichever way it began (an email code, a bridge): the custom token
 * becomes an ID token at the identity provider, the ID token a session at POST /auth/verify, and
 * the browser goes where it was going. Every refusal on the way gets a page saying why and what
 * the person can do.
 */
import { call, Unreachable } from "../shared/api";
import { idTokenFor } from "./identity-provider";
import { TRY_AGAIN, UNREACHABLE } from "../shared/messages";
import { button, h, linkButton, paragraph, view, working } from "../shared/ui";
import { verifyBody } from "../shared/browser-id";

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
