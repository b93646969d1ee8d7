/**
 * The passkey rule, in place: the service refuses an administrator's act (`passkey_required`)
 * when their session began another way than with a passkey (an email code, a provider, a
 * password), or when the fresh sign-in a change asks for must be a passkey's. The page then asks,
 * where the act was asked for, for a sign-in with their passkey; or, where they may (their first,
 * in the days after they were made an administrator, or after a recovery code), to add one and
 * sign in with it. A new session (POST /auth/verify), and the caller asks again.
 */
import { ask, type Answer } from "../shared/api";
import { says } from "../shared/messages";
import { alertBox, button, h, linkButton, paragraph, whileBusy } from "../shared/ui";
import type { PasskeyView, RuleView } from "../../../functions/src/core/passkeys/passkey-view";
import { passkeyToken } from "./passkey-token";
import { passkeysSupported } from "./webauthn";
import { addPasskey } from "./add-passkey";
import { reopen } from "./reopen";

/** Whether the service asked for a passkey sign-in before doing what was asked. */
export function passkeyAsked(answer: Answer): boolean {
  return answer.status === 403 && says(answer, "passkey_required");
}

export const ADMINISTRATORS_USE_PASSKEYS =
  "Administrators act only from a sign-in with a passkey: a code from an email can be passed on by a look-alike page, a passkey can't.";

/** The panel on the page now, if any: a second request for it replaces the first. */
let open: { panel: HTMLElement; settle(confirmed: boolean): void } | null = null;

const DAY = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

/**
 * Asks for a sign-in with a passkey, in a panel `place` puts on the page: true once a passkey
 * session is open, false when the person cancels (or another request takes its place).
 */
export function usePasskeyInPlace(
  place: (panel: HTMLElement) => void,
  why = "You signed in another way, or long enough ago that we ask again.",
): Promise<boolean> {
  open?.settle(false);
  return new Promise((resolve) => {
    const heading = h("h2", { id: "use-a-passkey", tabindex: "-1" }, "Use your passkey");
    const alert = alertBox();
    const body = h("div", {});
    const panel = h(
      "section",
      { class: "step-up", "aria-labelledby": "use-a-passkey" },
      heading,
      paragraph(`${ADMINISTRATORS_USE_PASSKEYS} ${why}`),
      alert.element,
      body,
    );
    const settle = (confirmed: boolean) => {
      if (open?.panel === panel) open = null;
      panel.remove();
      resolve(confirmed);
    };
    open = { panel, settle };
    const cancel = button("Cancel", { kind: "link", onclick: () => settle(false) });

    /** A passkey sign-in made here, and the new session: then the act goes on. */
    const signInWithIt = async () => {
      const signedIn = await passkeyToken(false);
      if ("refusal" in signedIn) return alert.show(signedIn.refusal);
      const refusal = await reopen(signedIn.customToken);
      if (refusal === null) settle(true);
      else alert.show(refusal);
    };

    body.replaceChildren(paragraph("Looking for your passkeys…"));
    place(panel);
    heading.focus();
    void (async () => {
      const mine = await ask(alert, "GET", "/auth/passkeys");
      if (mine?.status !== 200) return body.replaceChildren(h("div", { class: "actions" }, cancel));
      const passkeys = mine.body.passkeys as PasskeyView[];
      const rule = mine.body.rule as RuleView;
      const actions = h("div", { class: "actions" });
      if (!passkeysSupported()) {
        return body.replaceChildren(
          paragraph(
            "This browser can't use passkeys. Open this page in a browser that can, on a device with your passkey.",
          ),
          h("div", { class: "actions" }, cancel),
        );
      }
      if (passkeys.length > 0) {
        const use = button("Use your passkey", { kind: "primary" });
        use.addEventListener("click", () => {
          alert.show(null);
          void whileBusy(use, "Waiting for your passkey…", signInWithIt);
        });
        actions.append(use);
      }
      if (rule.mayAdd) {
        const add = button("Add a passkey", { kind: passkeys.length > 0 ? "secondary" : "primary" });
        add.addEventListener("click", () => {
          alert.show(null);
          void whileBusy(add, "Waiting for your passkey…", async () => {
            const added = await addPasskey(alert, window.location.href);
            if (added === null) return;
            if (added.kind === "refused") return alert.show(added.message, ...(added.action ? [added.action] : []));
            // Added: now the sign-in with it, which the act needs.
            await signInWithIt();
          });
        });
        actions.append(add);
      }
      const lines: Node[] = [];
      if (passkeys.length === 0 && rule.enrolBy !== null)
        lines.push(
          paragraph(
            `Your account has no passkey yet. Add one now, on this device: until ${DAY.format(new Date(rule.enrolBy))} the code you signed in with is enough for that.`,
          ),
        );
      if (passkeys.length === 0 && !rule.mayAdd)
        lines.push(
          paragraph(
            "Your account has no passkey, and the days when a code from an email was enough to add the first one are over. Sign in with one of your recovery codes to add one, or ask the people who run this service.",
          ),
          linkButton(
            "Sign in with a recovery code",
            `/?recovery=1&redirect=${encodeURIComponent(window.location.href)}`,
          ),
        );
      actions.append(cancel);
      body.replaceChildren(...lines, actions);
    })();
  });
}
