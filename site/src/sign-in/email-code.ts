/**
 * The two steps every email-code journey takes: an address, then the code mailed to it. Sign-in
 * and access requests differ only in their words and in what a correct code leads to.
 */
import { call, Unreachable, type Answer } from "../shared/api";
import { codeRefusal, justSent, normaliseCode, sendRefusalWords, UNREACHABLE, usedCodeWords } from "../shared/messages";
import { codeUsedLately } from "../shared/used-codes";
import { alertBox, button, field, h, paragraph, view, whileBusy } from "../shared/ui";

export interface EmailCodeJourney {
  purpose: "signin" | "request-access";
  /** The first step's heading and what it says, and what follows the form (other ways in, links). */
  title: string;
  intro: string;
  after?: () => Node[];
  /** The address field's autocomplete; `email` unless the journey says (sign-in offers passkeys there). */
  autocomplete?: string;
  /** Runs each time the first step is on the page (after `after`'s nodes are in it). */
  shown?: () => void;
  /**
   * What the first step asks besides the address (a request's name and note): the same nodes each
   * time the step is shown, so what was typed stays; `ready` checks them before a code is sent.
   */
  details?: { nodes: Node[]; ready(): boolean };
  /** What the code step says was sent, and where. */
  codeHint(email: string): string;
  submitLabel: string;
  /**
   * Checks the code with the service: the answer, when it is a refusal to show on the code step,
   * or a sentence of the journey's own to show there.
   */
  useCode(email: string, code: string): Promise<Answer | string | null>;
}

/** What the code step needs of a journey: also a step of another page's (confirming it's you), in place. */
export type CodeJourney = Pick<EmailCodeJourney, "purpose" | "codeHint" | "submitLabel" | "useCode">;

export async function send(journey: Pick<EmailCodeJourney, "purpose">, email: string): Promise<Answer> {
  return call("POST", "/auth/otp/send", { email, purpose: journey.purpose });
}

/** The email step on the page: whether the person has begun with it, and room for a word above it. */
export interface EmailStep {
  /** Typed in the field, or moved on from the step: a page must not take the form away then. */
  started(): boolean;
  /** Puts `notice` above the form, leaving the form and what is in it as they are. */
  offer(notice: Node): void;
}

export function emailStep(journey: EmailCodeJourney, prefill = ""): EmailStep {
  const alert = alertBox();
  const email = field({
    label: "Email address",
    name: "email",
    type: "email",
    autocomplete: journey.autocomplete ?? "email",
    value: prefill,
  });
  const submit = button("Email me a code", { type: "submit" });
  const form = h("form", { novalidate: true }, alert.element, email.element, ...(journey.details?.nodes ?? []), submit);
  // A code that was just sent to this address is already in the mailbox: go and enter it.
  const enterSentCode = (address: string) =>
    button("Enter the code we sent", { kind: "secondary", onclick: () => codeStep(journey, address) });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void whileBusy(submit, "Sending…", async () => {
      const address = email.input.value.trim();
      alert.show(null);
      if (!/^[^\s@]+@[^\s@]+$/.test(address)) return email.setError("Enter your email address, like name@example.com.");
      email.setError(null);
      if (journey.details?.ready() === false) return;
      try {
        const answer = await send(journey, address);
        if (answer.status === 200) return codeStep(journey, address);
        const refusal = sendRefusalWords(answer);
        if (refusal.field) email.setError(refusal.field);
        // The code just sent was used here a moment ago (a request confirmed, say): not one to enter.
        else if (justSent(answer) && codeUsedLately(address)) alert.show(usedCodeWords(answer));
        else if (justSent(answer)) alert.show(refusal.alert ?? null, enterSentCode(address));
        else alert.show(refusal.alert ?? null);
      } catch (err) {
        if (!(err instanceof Unreachable)) throw err;
        alert.show(UNREACHABLE);
      }
    });
  });
  view(journey.title, paragraph(journey.intro), form, ...(journey.after?.() ?? []));
  email.input.focus();
  journey.shown?.();
  return {
    started: () => !form.isConnected || email.input.value !== prefill,
    offer(notice) {
      if (form.isConnected) form.before(notice);
    },
  };
}

export function codeStep(journey: EmailCodeJourney, email: string): void {
  const other = button("Use a different email address", { kind: "link", onclick: () => emailStep(journey, email) });
  const code = codeForm(journey, email, [other]);
  view("Check your email", ...code.nodes);
  code.focus();
}

/**
 * The code step's form, its links (a new code, and `links`) and a word on missing mail: shown as
 * a page of its own by codeStep, or inside another page where a code confirms who is there.
 */
export function codeForm(
  journey: CodeJourney,
  email: string,
  links: Node[] = [],
): { nodes: HTMLElement[]; focus(): void } {
  const alert = alertBox();
  const code = field({
    label: "Code from the email",
    name: "code",
    inputmode: "numeric",
    autocomplete: "one-time-code",
    hint: journey.codeHint(email),
  });
  code.input.setAttribute("maxlength", "20");
  const submit = button(journey.submitLabel, { type: "submit" });
  const form = h("form", { novalidate: true }, alert.element, code.element, submit);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void whileBusy(submit, "Checking…", async () => {
      alert.show(null);
      const typed = normaliseCode(code.input.value);
      // A code that is not six digits is never sent: it could only spend one of the five attempts.
      if (typed === null) return code.setError("Enter the 6-digit code from the email.");
      code.setError(null);
      try {
        const refused = await journey.useCode(email, typed);
        if (refused === null) return;
        if (typeof refused === "string") return alert.show(refused);
        const refusal = codeRefusal(refused);
        if (refusal) code.setError(refusal.field);
        else alert.show(sendRefusalWords(refused).alert ?? null);
      } catch (err) {
        if (!(err instanceof Unreachable)) throw err;
        alert.show(UNREACHABLE);
      }
    });
  });
  const resend = button("Send a new code", {
    kind: "link",
    onclick: () =>
      void whileBusy(resend, "Sending…", async () => {
        try {
          const answer = await send(journey, email);
          alert.show(
            answer.status === 200
              ? "We've sent a new code. Use the newest email."
              : (sendRefusalWords(answer).alert ?? sendRefusalWords(answer).field ?? null),
          );
        } catch {
          alert.show(UNREACHABLE);
        }
      }),
  });
  return {
    nodes: [
      form,
      h("div", { class: "actions links" }, resend, ...links),
      h("p", { class: "small" }, "No email after a minute? Check the address and your spam folder."),
    ],
    focus: () => code.input.focus(),
  };
}
