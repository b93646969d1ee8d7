/**
 * The person's passkeys on `/account`: each with its name, when it was added and when it was
 * last used, to rename or remove; and a button to add one (which the service allows within five
 * minutes of signing in: otherwise the person is asked to sign in again first).
 */
import type { PasskeyView } from "../../../functions/src/core/passkeys/passkey-view";
import { ask, type Answer } from "../shared/api";
import { TRY_AGAIN } from "../shared/messages";
import { alertBox, button, field, h, linkButton, paragraph, whileBusy } from "../shared/ui";
import { ceremonyEnd, passkeysSupported, webauthn } from "../sign-in/webauthn";
import { PAST_STEP_UP } from "../../../functions/src/core/model/step-up";

type Passkey = PasskeyView;

const DAY = new Intl.DateTimeFormat(undefined, { dateStyle: "medium" });

/** "Added 3 Dec 2026 · last used 4 Dec 2026", and what else the person should know of it. */
export function describe(passkey: Passkey, format: (iso: string) => string): string {
  const used = passkey.lastUsedAt === null ? "not used yet" : `last used ${format(passkey.lastUsedAt)}`;
  const kind = passkey.synced ? " · synced across your devices" : "";
  const suspect = passkey.suspect ? " · blocked: it was copied, so it no longer signs you in" : "";
  return `Added ${format(passkey.createdAt)} · ${used}${kind}${suspect}`;
}

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

/** Why adding a passkey went wrong, as the person should hear it; the sign-in link when it is too late. */
function addRefusal(answer: Answer): { message: string; action?: Node } {
  if (answer.status === 401 && answer.body.reason === "sign_in_too_old")
    return {
      message: `To add a passkey, please sign in again first: it has been ${PAST_STEP_UP} since you signed in.`,
      action: linkButton(
        "Sign in again",
        `/?prompt=login&redirect=${encodeURIComponent(`${window.location.origin}/account`)}`,
        "primary",
      ),
    };
  if (answer.status === 409)
    return { message: "This passkey is already on your account, or you have as many as an account may hold." };
  if (answer.status === 400) return { message: "That passkey couldn't be added. Please try again." };
  return { message: TRY_AGAIN };
}

export function passkeysSection(): HTMLElement {
  const heading = h("h2", { id: "passkeys", tabindex: "-1" }, "Passkeys");
  const alert = alertBox();
  const list = h("ul", { class: "plain passkeys" });
  const status = h("p", { role: "status", class: "small" });
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
      const options = await ask(alert, "POST", "/auth/passkeys/register/options", {});
      if (options === null) return;
      if (options.status !== 200) {
        const refusal = addRefusal(options);
        return alert.show(refusal.message, ...(refusal.action ? [refusal.action] : []));
      }
      const { startRegistration } = await webauthn();
      let credential;
      try {
        credential = await startRegistration({ optionsJSON: options.body.options as never });
      } catch (err) {
        const end = ceremonyEnd(err);
        if (end === "superseded") return;
        return alert.show(
          end === "duplicate"
            ? "This device already has a passkey for your account."
            : end === "cancelled"
              ? "Adding a passkey was cancelled, or it took too long."
              : "This browser couldn't make a passkey just now. Please try again.",
        );
      }
      const name = suggestedName(platformName());
      const answer = await ask(alert, "POST", "/auth/passkeys/register/verify", { credential, name });
      if (answer === null) return;
      if (answer.status !== 201) {
        const refusal = addRefusal(answer);
        return alert.show(refusal.message, ...(refusal.action ? [refusal.action] : []));
      }
      await refresh();
      status.textContent = `Passkey added as “${name}”. You can rename it.`;
      focusOn("rename", String(answer.body.id));
    });
  });

  void refresh();
  return section;
}
