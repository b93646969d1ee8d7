/**
 * `/`: sign in by email code, a passkey or a bridge, and the landing of a bridge sign-in
 * (`/?customToken=…&redirect=…`). Query: `redirect` (where to go afterwards, allowlisted),
 * `project` (the grant POST /auth/verify checks; `account` by default), `prompt` (from the
 * OpenID Connect provider: `login` asks for a fresh sign-in, `select_account` for a choice),
 * `require=passkey` (from the provider too: a passkey sign-in and nothing else), `recovery=1`
 * (a sign-in with a recovery code, for a lost passkey).
 */
import { call, currentSession, type Person } from "../shared/api";
import { bridgeButtons, listBridges, recallProject } from "../sign-in/bridges";
import { emailStep, type EmailCodeJourney } from "../sign-in/email-code";
import { failed, finishSignIn, pending, rejected, type Destination } from "../sign-in/finish";
import { says } from "../shared/messages";
import { noteCodeUsed } from "../shared/used-codes";
import { passkeyOnly, withPasskeys } from "../sign-in/passkeys";
import { allowedRedirect, projectFrom } from "../sign-in/redirect";
import { recoveryLink, recoveryStep } from "../sign-in/recovery-code";
import { button, h, linkButton, paragraph, view } from "../shared/ui";

const here = new URL(window.location.href);
const customToken = here.searchParams.get("customToken");
if (customToken !== null) {
  // First of all: the token leaves the address bar (and so the history, and any later Referer).
  here.searchParams.delete("customToken");
  window.history.replaceState(null, "", here.pathname + here.search);
}

const rawRedirect = here.searchParams.get("redirect");
const redirect = allowedRedirect(rawRedirect);
const prompts = (here.searchParams.get("prompt") ?? "").split(" ");
const restart = here.pathname + here.search;

function requestAccessLink(): Node[] {
  const target = `/request-access${rawRedirect === null ? "" : `?redirect=${encodeURIComponent(rawRedirect)}`}`;
  return [h("p", { class: "aside" }, "No account yet? ", h("a", { href: target }, "Request access"))];
}

function journey(to: Destination): EmailCodeJourney {
  return withPasskeys(emailCodeJourney(to), to);
}

function emailCodeJourney(to: Destination): EmailCodeJourney {
  return {
    purpose: "signin",
    title: "Sign in",
    intro: "Enter your email address and we'll email you a code to sign in with.",
    after: () => [bridgeButtons(to.redirect, to.project), ...requestAccessLink(), recoveryLink(to)],
    codeHint: (email) => `If ${email} has an account, we've emailed it a 6-digit code. It works for 10 minutes.`,
    submitLabel: "Sign in",
    async useCode(email, code) {
      const answer = await call("POST", "/auth/otp/sign-in", { email, otp: code });
      // A right code is used whether it signs in or is refused as pending or rejected.
      if (answer.status === 200 || answer.status === 403) noteCodeUsed(email);
      if (answer.status === 200 && typeof answer.body.customToken === "string") {
        await finishSignIn(answer.body.customToken, to);
        return null;
      }
      if (answer.status !== 403) return answer;
      if (says(answer, "pending")) pending(to.restart);
      else if (says(answer, "rejected")) rejected(to.restart);
      else noAccount(email);
      return null;
    },
  };
}

function noAccount(email: string): void {
  view(
    "There's no account for this address",
    paragraph(`${email} isn't on any account. If you're new, request access: a reviewer decides who gets in.`),
    h(
      "div",
      { class: "actions" },
      linkButton("Request access", `/request-access?email=${encodeURIComponent(email)}`, "primary"),
      linkButton("Use a different email address", restart),
    ),
  );
}

function describe(person: Person): string {
  return person.email === null ? person.name : person.name === "" ? person.email : `${person.name} (${person.email})`;
}

/** Already signed in: carry on as that person, or sign in as someone else. */
function signedIn(person: Person, to: Destination): void {
  const who = describe(person);
  const other = button("Sign in as someone else", {
    kind: "secondary",
    onclick: () => void call("POST", "/auth/logout").finally(() => emailStep(journey(to))),
  });
  view(
    "You're already signed in",
    paragraph(`You're signed in as ${who}.`),
    h(
      "div",
      { class: "actions" },
      linkButton(rawRedirect === null ? "Go to your account" : "Continue", to.redirect, "primary"),
      other,
    ),
  );
}

async function main(): Promise<void> {
  if (redirect === null) {
    return failed(
      { restart: "/" },
      "This sign-in link can't be used",
      "It would send you somewhere that isn't part of this service afterwards, so we won't use it. Start from the site you were using, or sign in here.",
    );
  }
  if (customToken !== null) {
    const project = recallProject(redirect) ?? projectFrom(here.searchParams.get("project"));
    return finishSignIn(customToken, { redirect, project, restart });
  }
  const to: Destination = { redirect, project: projectFrom(here.searchParams.get("project")), restart };
  // An app asked for a phishing-resistant sign-in: a passkey, whatever this browser holds.
  if (here.searchParams.get("require") === "passkey") return passkeyOnly(to);
  if (here.searchParams.get("recovery") === "1") return recoveryStep(to);
  void listBridges();
  // The form first, at once: the session is checked beside it, and a person who has begun typing
  // keeps what they typed. prompt=login: they must authenticate now, whatever this browser holds.
  const step = emailStep(journey(to));
  if (prompts.includes("login")) return;
  const session = await currentSession();
  if (session.kind !== "signed-in") return;
  if (!step.started()) return signedIn(session.person, to);
  step.offer(
    h(
      "div",
      { class: "notice", role: "status" },
      paragraph(`You're already signed in as ${describe(session.person)}. `, h("a", { href: to.redirect }, "Continue")),
    ),
  );
}

void main();
