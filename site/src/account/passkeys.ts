/**
 * The person's passkeys on `/account`: each with its name, when it was added and when it was
 * last used, to rename or remove; and a button to add one (adding and removing, the service allows
 * within five minutes of signing in: otherwise the person is asked to sign in again first).
 */
import type { PasskeyView, RuleView } from "../../../functions/src/core/passkeys/passkey-view";
import { ask } from "../shared/api";
import { TRY_AGAIN } from "../shared/messages";
import { alertBox, button, field, h, paragraph, whileBusy } from "../shared/ui";
import { passkeysSupported } from "../sign-in/webauthn";
import { addPasskey, signInAgainTo, signInTooOld } from "../sign-in/add-passkey";

export { suggestedName } from "../sign-in/add-passkey";

type Passkey = PasskeyView;

const DAY = new Intl.DateTimeFormat(undefined, { dateStyle: "medium" });

/** "Added 3 Dec 2026 · last used 4 Dec 2026", and what else the person should know of it. */
export function describe(passkey: Passkey, format: (iso: string) => string): string {
  const used = passkey.lastUsedAt === null ? "not used yet" : `last used ${format(passkey.lastUsedAt)}`;
  const kind = passkey.synced ? " · synced across your devices" : "";
  const suspect = passkey.suspect ? " · blocked: it was copied, so it no longer signs you in" : "";
  return `Added ${format(passkey.createdAt)} · ${used}${kind}${suspect}`;
}

/** What the passkey rule means for this administrator now, on their account page. */
function ruleWords(rule: RuleView, held: number): string {
  const first = `As an administrator, you act as one only from a sign-in with a passkey.`;
  if (rule.liftedUntil !== null)
    return `${first} The operator has lifted that for you until ${new Date(rule.liftedUntil).toLocaleString()}.`;
  if (held === 0 && rule.enrolBy !== null)
    return `${first} Add one now: until ${new Date(rule.enrolBy).toLocaleString()} the code you signed in with is enough for your first.`;
  if (held === 0 && !rule.mayAdd)
    return `${first} Your account has none: sign in with a recovery code to add one, or ask the people who run this service.`;
  return rule.acts
    ? `${first} You signed in with one.`
    : `${first} Sign in with one of yours to act as an administrator.`;
}

export function passkeysSection(): HTMLElement {
  const heading = h("h2", { id: "passkeys", tabindex: "-1" }, "Passkeys");
  const alert = alertBox();
  const list = h("ul", { class: "plain passkeys" });
  const status = h("p", { role: "status", class: "small" });
  const rule = h("p", { class: "notice", hidden: true });
  const add = button("Add a passkey", { kind: "secondary" });
  const cannot = paragraph("This browser can't make passkeys. You can still rename or remove the ones you have.");
  cannot.className = "small";
  const section = h(
    "section",
    { "aria-labelledby": "passkeys" },
    heading,
    paragraph(
      "Sign in with your fingerprint, face or screen lock instead of a code from an email. A passkey only works on this site, so a look-alike page can't use it.",
    ),
    rule,
    alert.element,
    list,
    passkeysSupported() ? add : cannot,
    status,
  );

  async function refresh(): Promise<Passkey[]> {
    const answer = await ask(alert, "GET", "/auth/passkeys");
    if (answer === null) return [];
    if (answer.status !== 200) {
      alert.show("We couldn't show your passkeys just now. Please reload the page.");
      return [];
    }
    const passkeys = answer.body.passkeys as Passkey[];
    const held = answer.body.rule as RuleView | undefined;
    rule.hidden = held?.holds !== true;
    if (held?.holds === true) rule.textContent = ruleWords(held, passkeys.length);
    list.replaceChildren(...passkeys.map(row));
    if (passkeys.length === 0) list.append(h("li", { class: "small" }, "You have no passkeys yet."));
    return passkeys;
  }

  /** Focus on a passkey's Rename or Remove button once the list is redrawn, or on the heading. */
  function focusOn(action: "rename" | "remove", id: string): void {
    const target = list.querySelector<HTMLElement>(`[data-${action}="${CSS.escape(id)}"]`);
    (target ?? heading).focus();
  }

  /** A row's button says which passkey it acts on ("Rename Work laptop"), and is found again by its id. */
  function named(control: HTMLButtonElement, action: "rename" | "remove", passkey: Passkey): HTMLButtonElement {
    control.setAttribute("aria-label", `${action === "rename" ? "Rename" : "Remove"} ${passkey.name}`);
    control.dataset[action] = passkey.id;
    return control;
  }

  function row(passkey: Passkey): HTMLElement {
    const item = h("li", { class: "passkey-item" });
    const show = () =>
      item.replaceChildren(
        h("p", { class: "passkey-name" }, passkey.name),
        h(
          "p",
          { class: "small" },
          describe(passkey, (iso) => DAY.format(new Date(iso))),
        ),
        h(
          "div",
          { class: "actions links" },
          named(button("Rename", { kind: "link", onclick: () => rename(passkey, item, show) }), "rename", passkey),
          named(
            button("Remove", { kind: "link", onclick: () => confirmRemoval(passkey, item, show) }),
            "remove",
            passkey,
          ),
        ),
      );
    show();
    return item;
  }

  function rename(passkey: Passkey, item: HTMLElement, back: () => void): void {
    const name = field({ label: `New name for ${passkey.name}`, name: "name", value: passkey.name });
    name.input.setAttribute("maxlength", "60");
    const save = button("Save", { type: "submit" });
    const cancel = button("Cancel", {
      kind: "link",
      onclick: () => {
        back();
        focusOn("rename", passkey.id);
      },
    });
    const form = h("form", { novalidate: true }, name.element, h("div", { class: "actions" }, save, cancel));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      void whileBusy(save, "Saving…", async () => {
        const chosen = name.input.value.trim();
        if (chosen === "" || chosen.length > 60) return name.setError("Give it a name of up to 60 characters.");
        const answer = await ask(alert, "PATCH", `/auth/passkeys/${encodeURIComponent(passkey.id)}`, { name: chosen });
        if (answer === null) return;
        if (answer.status === 400) return name.setError("Give it a name of up to 60 characters, letters and symbols.");
        if (answer.status !== 200) return alert.show(TRY_AGAIN);
        await refresh();
        status.textContent = `Renamed to “${chosen}”.`;
        focusOn("rename", passkey.id);
      });
    });
    item.replaceChildren(form);
    name.input.focus();
  }

  function confirmRemoval(passkey: Passkey, item: HTMLElement, back: () => void): void {
    const question = h(
      "p",
      { tabindex: "-1" },
      `Remove “${passkey.name}”? You won't be able to sign in with it any more. Your email address still signs you in.`,
    );
    const remove = button("Remove passkey", { kind: "primary" });
    remove.addEventListener("click", () => {
      void whileBusy(remove, "Removing…", async () => {
        const answer = await ask(alert, "DELETE", `/auth/passkeys/${encodeURIComponent(passkey.id)}`);
        if (answer === null) return;
        if (signInTooOld(answer)) {
          const again = signInAgainTo("remove a passkey", `${window.location.origin}/account`);
          return alert.show(again.message, again.action);
        }
        if (answer.status !== 200 && answer.status !== 404) return alert.show(TRY_AGAIN);
        await refresh();
        status.textContent = `Removed “${passkey.name}”.`;
        heading.focus();
      });
    });
    const keep = button("Keep it", {
      kind: "secondary",
      onclick: () => {
        back();
        focusOn("remove", passkey.id);
      },
    });
    item.replaceChildren(question, h("div", { class: "actions" }, remove, keep));
    question.focus();
  }

  add.addEventListener("click", () => {
    alert.show(null);
    status.textContent = "";
    void whileBusy(add, "Waiting for your passkey…", async () => {
      const added = await addPasskey(alert, `${window.location.origin}/account`);
      if (added === null) return;
      if (added.kind === "refused") return alert.show(added.message, ...(added.action ? [added.action] : []));
      await refresh();
      status.textContent = `Passkey added as “${added.name}”. You can rename it.`;
      focusOn("rename", added.id);
    });
  });

  void refresh();
  return section;
}
