/**
 * A person's email addresses, on `/account`: each one, and which one mail goes to; making another
 * the one mail goes to; removing one (never the last); and adding one, which takes the code mailed
 * to it (core/account/addresses in the functions); a removed address takes the accounts that sign
 * in with it (a Google account of that address), and when this browser signed in through one of
 * them, it is signed out. An address someone else holds is answered as
 * any other, and no code comes. Each step asks the person to confirm it's them when their sign-in
 * is older than the step-up window, in place, and then goes ahead.
 */
import { ask, type Answer, type Person } from "../shared/api";
import { normaliseCode, says, sendRefusalWords, TRY_AGAIN } from "../shared/messages";
import { alertBox, button, field, h, paragraph, unseen, whileBusy } from "../shared/ui";
import { askConfirmed } from "./data";

/** Why a code was refused here: wrong, expired or used up (a new one is sent from the form above it). */
function codeWords(answer: Answer): string {
  if (says(answer, "code_expired")) return "That code has expired. Send a new one.";
  if (says(answer, "code_exhausted")) return "That code was entered wrongly too many times. Send a new one.";
  if (says(answer, "code_malformed")) return "Enter the 6-digit code from the email.";
  return "That code isn't right. Check the email and try again.";
}

export function addressesSection(
  me: Person,
  changed: (emails: string[]) => void,
  lost: (why: string) => void,
): HTMLElement {
  const heading = h("h2", { id: "addresses", tabindex: "-1" }, "Email addresses");
  const alert = alertBox();
  const list = h("ul", { class: "plain sessions" });
  const status = h("p", { role: "status", class: "small" });
  let emails: string[] = me.email === null ? [] : [me.email];
  /** The address a code was sent to, waiting for it. */
  let pending: string | null = null;
  /** The last change took this browser's sign-in with it. */
  let signedOut = false;

  function show(next: string[]): void {
    emails = next;
    list.replaceChildren(...next.map(row));
    changed(next);
  }

  /** Asks, then shows the addresses the service answers with; false (said in the alert) otherwise. */
  async function change(near: HTMLElement, method: "POST" | "DELETE", path: string, email?: string): Promise<boolean> {
    alert.show(null);
    status.textContent = "";
    const answer = await askConfirmed(alert, near, me, method, path, email === undefined ? undefined : { email });
    if (answer === null) return false;
    if (answer === "cancelled") {
      status.textContent = "Nothing was changed.";
      return false;
    }
    if (answer.status === 200) {
      show(answer.body.emails as string[]);
      signedOut = answer.body.signedOut === true;
      return true;
    }
    if (says(answer, "last_address")) alert.show("This is your only address: add another before you remove it.");
    else if (answer.status === 404) show(await current());
    else alert.show(TRY_AGAIN);
    return false;
  }

  function row(address: string, index: number): HTMLElement {
    const actions: HTMLElement[] = [];
    if (index > 0) {
      const primary = button(["Make this the address we mail", unseen(`: ${address}`)], { kind: "link" });
      primary.addEventListener("click", () => {
        void whileBusy(primary, "Saving…", async () => {
          if (!(await change(primary, "POST", "/auth/account/addresses/primary", address))) return;
          status.textContent = `We'll email ${address} from now on.`;
          heading.focus();
        });
      });
      actions.push(primary);
    }
    if (emails.length > 1) {
      const remove = button("Remove", { kind: "link" });
      remove.setAttribute("aria-label", `Remove ${address}`);
      remove.addEventListener("click", () => {
        void whileBusy(remove, "Removing…", async () => {
          const path = `/auth/account/addresses/${encodeURIComponent(address)}`;
          if (!(await change(remove, "DELETE", path))) return;
          // This browser was signed in through an account of that address, which went with it.
          if (signedOut)
            return lost(`Removed ${address}. This browser was signed in through it, so it's signed out too.`);
          status.textContent = `Removed ${address}. It no longer signs in to your account, and we've emailed it to say so.`;
          heading.focus();
        });
      });
      actions.push(remove);
    }
    return h(
      "li",
      { class: "session-item" },
      h(
        "p",
        { class: "session-name" },
        address,
        index === 0 ? h("span", { class: "badge" }, "We email this one") : null,
      ),
      actions.length > 0 && h("div", { class: "actions links" }, ...actions),
    );
  }

  const newAddress = field({ label: "New email address", name: "email", type: "email", autocomplete: "email" });
  const send = button("Send a code", { kind: "secondary", type: "submit" });
  const addForm = h("form", { novalidate: true }, newAddress.element, send);
  const sentTo = h("p", { role: "status" });
  const code = field({
    label: "Code from the email",
    name: "otp",
    autocomplete: "one-time-code",
    inputmode: "numeric",
    hint: "6 digits. It works for 10 minutes.",
  });
  const confirm = button("Add this address", { kind: "secondary", type: "submit" });
  const codeForm = h("form", { novalidate: true, hidden: true }, sentTo, code.element, confirm);

  addForm.addEventListener("submit", (event) => {
    event.preventDefault();
    newAddress.setError(null);
    const email = newAddress.input.value.trim();
    void whileBusy(send, "Sending…", async () => {
      alert.show(null);
      status.textContent = "";
      const answer = await askConfirmed(alert, send, me, "POST", "/auth/account/addresses", { email });
      if (answer === null) return;
      if (answer === "cancelled") return void (status.textContent = "No code was sent.");
      if (answer.status === 400) return newAddress.setError("Enter an email address, like name@example.com.");
      if (says(answer, "address_already_yours")) return newAddress.setError("That address is already on your account.");
      if (answer.status !== 200) return alert.show(sendRefusalWords(answer).alert ?? TRY_AGAIN);
      pending = email;
      sentTo.textContent = `We've sent a code to ${email}. Enter it here to add the address. If no email comes, check the address and send another.`;
      code.input.value = "";
      code.setError(null);
      codeForm.hidden = false;
      code.input.focus();
    });
  });

  codeForm.addEventListener("submit", (event) => {
    event.preventDefault();
    code.setError(null);
    const otp = normaliseCode(code.input.value);
    if (otp === null) return code.setError("Enter the 6-digit code from the email.");
    const email = pending as string;
    void whileBusy(confirm, "Adding…", async () => {
      alert.show(null);
      const answer = await askConfirmed(alert, confirm, me, "POST", "/auth/account/addresses/verify", { email, otp });
      if (answer === null) return;
      if (answer === "cancelled") return void (status.textContent = "The address wasn't added.");
      if (answer.status === 400) return code.setError(codeWords(answer));
      if (answer.status === 409) {
        codeForm.hidden = true;
        return alert.show("That address can't be added to your account: it's on another account now.");
      }
      if (answer.status !== 200) return alert.show(TRY_AGAIN);
      show(answer.body.emails as string[]);
      codeForm.hidden = true;
      newAddress.input.value = "";
      pending = null;
      status.textContent = `Added ${email}. You can now make it the address we mail.`;
      heading.focus();
    });
  });

  async function current(): Promise<string[]> {
    const answer = await ask(alert, "GET", "/auth/account/addresses");
    if (answer === null || answer.status !== 200) {
      if (answer !== null) alert.show("We couldn't show your addresses just now. Please reload the page.");
      return emails;
    }
    return answer.body.emails as string[];
  }

  show(emails);
  void current().then(show);
  return h(
    "section",
    { "aria-labelledby": "addresses" },
    heading,
    paragraph("The addresses you sign in with. We email the first one about your account."),
    alert.element,
    list,
    status,
    h("h3", {}, "Add an address"),
    paragraph("We'll email a code to it. The address is added once you enter the code."),
    addForm,
    codeForm,
  );
}
