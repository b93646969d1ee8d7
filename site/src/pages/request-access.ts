/**
 * `/request-access`: a person with no account proves their address with a `request-access`
 * code, and may say who they are and why they ask (a name, a note for the reviewer, sent with
 * the code); the service records the request for a reviewer, and the page says what happens next.
 */
import { call } from "../shared/api";
import { emailStep, type EmailCodeJourney } from "../sign-in/email-code";
import { says } from "../shared/messages";
import { noteCodeUsed } from "../shared/used-codes";
import { field, h, linkButton, paragraph, textArea, view } from "../shared/ui";

const here = new URL(window.location.href);
const signIn = `/${here.searchParams.has("redirect") ? `?redirect=${encodeURIComponent(here.searchParams.get("redirect") as string)}` : ""}`;

/** The service's limits (core/email-codes: REQUEST_NAME_MAX, REQUEST_NOTE_MAX). */
const NAME_MAX = 100;
const NOTE_MAX = 500;

const name = field({ label: "Your name", name: "name", autocomplete: "name", optional: true, maxlength: NAME_MAX });
const note = textArea({
  label: "A note for the reviewer",
  name: "note",
  optional: true,
  maxlength: NOTE_MAX,
  hint: "Who you are, or why you'd like access. The reviewer sees it as plain text.",
});
name.input.setAttribute("spellcheck", "true");
name.input.setAttribute("autocapitalize", "words");

/** Whether the name and note fit (a field's own limit keeps them in; this says so if not). */
function detailsFit(): boolean {
  name.setError(null);
  note.setError(null);
  if (name.input.value.length > NAME_MAX) name.setError(`Your name can be up to ${NAME_MAX} characters.`);
  else if (note.input.value.length > NOTE_MAX) note.setError(`The note can be up to ${NOTE_MAX} characters.`);
  else return true;
  return false;
}

function requested(email: string): void {
  view(
    "Your request is in",
    paragraph(`Thank you: ${email} is confirmed as yours, and your request is waiting for a reviewer.`),
    h("h2", {}, "What happens next"),
    h(
      "ol",
      {},
      h("li", {}, "A reviewer decides whether to give you access. Once you're approved, we'll email you."),
      h("li", {}, "Then sign in with this address: we'll email you a code."),
      h("li", {}, "If this address already has an account, you can sign in with it now."),
    ),
    linkButton("Go to sign in", signIn, "primary"),
  );
}

const journey: EmailCodeJourney = {
  purpose: "request-access",
  title: "Request access",
  intro:
    "Enter your email address. We'll email you a code to confirm it's yours, and then a reviewer decides whether to give you access.",
  after: () => [h("p", { class: "aside" }, "Already have an account? ", h("a", { href: signIn }, "Sign in"))],
  details: { nodes: [name.element, note.element], ready: detailsFit },
  codeHint: (email) => `We've emailed a 6-digit code to ${email}. It works for 10 minutes.`,
  submitLabel: "Confirm my address",
  async useCode(email, code) {
    const details = { name: name.input.value.trim(), note: note.input.value.trim() };
    const answer = await call("POST", "/auth/otp/verify", {
      email,
      otp: code,
      purpose: "request-access",
      ...(details.name === "" ? {} : { name: details.name }),
      ...(details.note === "" ? {} : { note: details.note }),
    });
    if (says(answer, "details_invalid")) {
      // Checked before the code, which is still good: back to the fields, the refusal at the one that is off.
      emailStep(journey, email);
      const off = details.name.length > NAME_MAX ? name : note;
      off.setError(
        off === name
          ? `Your name can be up to ${NAME_MAX} characters.`
          : `The note can be up to ${NOTE_MAX} characters, as plain text.`,
      );
      return null;
    }
    if (answer.status !== 200) return answer;
    noteCodeUsed(email);
    requested(email);
    return null;
  },
};

emailStep(journey, here.searchParams.get("email") ?? "");
