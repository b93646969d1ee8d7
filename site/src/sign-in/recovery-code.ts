/**
 * Signing in with a recovery code (`/?recovery=1`, and "Lost your passkey?" under the sign-in
 * form): an address and one of the ten codes made on the account page. It ends as any sign-in
 * does (finishSignIn), with a session that may add a new passkey, and nothing more than a
 * member's own account besides.
 */
import { call, Unreachable } from "../shared/api";
import { says, TRY_AGAIN, UNREACHABLE, waitFor } from "../shared/messages";
import { alertBox, button, field, h, linkButton, paragraph, view, whileBusy } from "../shared/ui";
import { finishSignIn, type Destination } from "./finish";

/** The link under the sign-in form. */
export function recoveryLink(to: Destination): Node {
  const open = button("Lost your passkey? Use a recovery code", {
    kind: "link",
    onclick: () => recoveryStep(to),
  });
  return h("p", { class: "aside" }, open);
}

export function recoveryStep(to: Destination): void {
  const alert = alertBox();
  const email = field({ label: "Email address", name: "email", type: "email", autocomplete: "email" });
  const code = field({ label: "Recovery code", name: "recovery-code", autocomplete: "off" });
  code.input.setAttribute("spellcheck", "false");
  code.input.setAttribute("autocapitalize", "off");
  const submit = button("Sign in", { type: "submit" });
  const form = h("form", { novalidate: true }, alert.element, email.element, code.element, submit);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void whileBusy(submit, "Signing in…", async () => {
      alert.show(null);
      if (email.input.value.trim() === "") return email.setError("Enter your email address.");
      if (code.input.value.trim() === "") return code.setError("Enter one of your recovery codes.");
      let answer;
      try {
        answer = await call("POST", "/auth/passkeys/recovery/sign-in", {
          email: email.input.value.trim(),
          code: code.input.value,
        });
      } catch (err) {
        if (!(err instanceof Unreachable)) throw err;
        return alert.show(UNREACHABLE);
      }
      if (answer.status === 200 && typeof answer.body.customToken === "string")
        return finishSignIn(answer.body.customToken, to);
      if (says(answer, "code_malformed"))
        return code.setError("A recovery code is ten letters and digits, like k3m9q-x2v7d.");
      if (says(answer, "code_invalid"))
        return code.setError("That code wasn't accepted. Check the address, and use a code you haven't used before.");
      const wait = answer.retryAfter === null ? "later" : waitFor(answer.retryAfter);
      if (says(answer, "address_locked"))
        return alert.show(`Too many wrong codes were tried for this address. Try again ${wait}.`);
      if (says(answer, "recovery_budget"))
        return alert.show(`Many recovery codes have been tried from your network lately. Try again ${wait}.`);
      if (says(answer, "pending") || says(answer, "rejected"))
        return alert.show("This account can't sign in: it isn't approved.");
      alert.show(TRY_AGAIN);
    });
  });
  view(
    "Sign in with a recovery code",
    paragraph(
      "Use one of the recovery codes you saved when you made them on your account page. Each works once. Once you're in, add a new passkey on your account page.",
    ),
    form,
    h("p", { class: "aside" }, linkButton("Back to sign in", to.restart)),
  );
  email.input.focus();
}
