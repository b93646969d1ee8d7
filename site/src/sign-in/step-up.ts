/**
 * Confirming it's you, in place: the service refuses a change that widens someone's access
 * (approve, make administrator, grant a project or a group, add an address or a number) when the
 * administrator signed in more than 5 minutes ago (`step_up_required`). The page then asks for a
 * fresh sign-in where the change was asked for, without leaving it: a code mailed to the
 * administrator's address (the sign-in page's code step), or their passkey; a new session with a
 * fresh sign-in time (POST /auth/verify); and the change again, by the caller.
 */
import { call, Unreachable, type Answer, type Person } from "../shared/api";
import { codeForm, send, type CodeJourney } from "./email-code";
import { justSent, says, sendRefusalWords, TRY_AGAIN, UNREACHABLE } from "../shared/messages";
import { reopen } from "./reopen";
import { passkeyAsked, usePasskeyInPlace } from "./passkey-in-place";
import { passkeyToken } from "./passkey-token";
import { alertBox, button, h, linkButton, paragraph, whileBusy } from "../shared/ui";
import { passkeysSupported } from "./webauthn";
import { PAST_STEP_UP } from "../../../functions/src/core/model/step-up";

/** Whether the service asked for a fresh sign-in before doing what was asked. */
export function stepUpAsked(answer: Answer): boolean {
  return answer.status === 403 && says(answer, "step_up_required");
}

/** The panel on the page now, if any: a second request for it replaces the first. */
let open: { panel: HTMLElement; settle(confirmed: boolean): void } | null = null;

/**
 * Asks the administrator to confirm it's them, in a panel `place` puts on the page: true once a
 * fresh session is open, false when they cancel (or another request for it takes its place).
 */
export function confirmItsYou(
  place: (panel: HTMLElement) => void,
  me: Person,
  why = `This gives someone more access, and you signed in ${PAST_STEP_UP} ago.`,
): Promise<boolean> {
  open?.settle(false);
  return new Promise((resolve) => {
    const heading = h("h2", { id: "confirm-its-you", tabindex: "-1" }, "Confirm it's you");
    const alert = alertBox();
    const body = h("div", {});
    const panel = h(
      "section",
      { class: "step-up", "aria-labelledby": "confirm-its-you" },
      heading,
      paragraph(`${why} Confirm it's you, and we'll carry on.`),
      alert.element,
      body,
    );
    const settle = (confirmed: boolean) => {
      if (open?.panel === panel) open = null;
      panel.remove();
      resolve(confirmed);
    };
    open = { panel, settle };
    const cancel = () => button("Cancel", { kind: "link", onclick: () => settle(false) });

    const journey: CodeJourney = {
      purpose: "signin",
      codeHint: (email) => `We've emailed a 6-digit code to ${email}. It works for 10 minutes.`,
      submitLabel: "Confirm",
      async useCode(email, code) {
        const answer = await call("POST", "/auth/otp/sign-in", { email, otp: code });
        if (answer.status !== 200 || typeof answer.body.customToken !== "string") return answer;
        const refusal = await reopen(answer.body.customToken);
        if (refusal === null) settle(true);
        return refusal;
      },
    };

    const enterCode = (email: string) => {
      const form = codeForm(journey, email, [cancel()]);
      body.replaceChildren(...form.nodes);
      form.focus();
    };

    if (me.email === null) {
      body.replaceChildren(
        paragraph("Your account has no email address to send a code to. Sign in again, then come back to this page."),
        h(
          "div",
          { class: "actions" },
          linkButton("Sign in again", `/?prompt=login&redirect=${encodeURIComponent(window.location.href)}`),
          cancel(),
        ),
      );
    } else {
      const email = me.email;
      const mail = button("Email me a code", { kind: "primary" });
      mail.addEventListener("click", () => {
        alert.show(null);
        void whileBusy(mail, "Sending…", async () => {
          try {
            const answer = await send(journey, email);
            if (answer.status === 200) return enterCode(email);
            if (justSent(answer))
              return alert.show(
                sendRefusalWords(answer).alert ?? null,
                button("Enter the code we sent", { kind: "secondary", onclick: () => enterCode(email) }),
              );
            alert.show(sendRefusalWords(answer).alert ?? TRY_AGAIN);
          } catch (err) {
            if (!(err instanceof Unreachable)) throw err;
            alert.show(UNREACHABLE);
          }
        });
      });
      const actions = h("div", { class: "actions" }, mail, cancel());
      body.replaceChildren(actions);
      if (passkeysSupported()) void offerPasskey(actions, mail, alert, settle);
    }
    place(panel);
    heading.focus();
  });
}

/** "Use a passkey" beside the code, for an administrator who has one. */
async function offerPasskey(
  actions: HTMLElement,
  after: HTMLElement,
  alert: ReturnType<typeof alertBox>,
  settle: (confirmed: boolean) => void,
): Promise<void> {
  const mine = await call("GET", "/auth/passkeys").catch(() => null);
  if (mine?.status !== 200 || !Array.isArray(mine.body.passkeys) || mine.body.passkeys.length === 0) return;
  const use = button("Use a passkey", { kind: "secondary" });
  use.addEventListener("click", () => {
    alert.show(null);
    void whileBusy(use, "Waiting for your passkey…", async () => {
      const signedIn = await passkeyToken(false);
      if ("refusal" in signedIn) return alert.show(signedIn.refusal);
      const refusal = await reopen(signedIn.customToken);
      if (refusal === null) settle(true);
      else alert.show(refusal);
    });
  });
  after.after(use);
}

/**
 * Asks (`act`), and when the service wants a fresh sign-in first, asks the person to confirm it's
 * them in a panel `place` puts on the page, then asks once more: the answer; null when `act` got
 * none (it has said why); "cancelled" when they did not confirm. Where the passkey rule holds an
 * administrator, the service asks for their passkey instead (`passkey_required`), and so does the
 * page; a code confirmed meanwhile with the rule just turned on is asked about once more.
 */
export async function withStepUp(
  act: () => Promise<Answer | null>,
  place: (panel: HTMLElement) => void,
  me: Person,
  why?: string,
): Promise<Answer | null | "cancelled"> {
  let answer = await act();
  for (let round = 0; round < 2 && answer !== null; round++) {
    if (passkeyAsked(answer)) {
      if (!(await usePasskeyInPlace(place))) return "cancelled";
    } else if (stepUpAsked(answer)) {
      if (!(await confirmItsYou(place, me, why))) return "cancelled";
    } else return answer;
    answer = await act();
  }
  return answer;
}
