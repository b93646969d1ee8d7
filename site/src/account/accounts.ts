/**
 * The accounts that sign in as the person besides their addresses' codes and passkeys, on
 * `/account`: a Google account, a bridge's, a password; "Unlink" lets one go for good, and it is
 * deleted at the identity provider (core/account/linked-accounts in the functions). Unlinking asks
 * the person to confirm it's them when their sign-in is older than the step-up window. Unlinking
 * the account this browser signed in through signs it out. Hidden while there are none.
 */
import type { LinkedAccountView } from "../../../functions/src/core/account/linked-accounts";
import { ask, type Person } from "../shared/api";
import { says, TRY_AGAIN } from "../shared/messages";
import { roughly } from "../shared/session-words";
import { alertBox, button, h, paragraph, unseen, whileBusy } from "../shared/ui";
import { askConfirmed } from "./data";

export function accountsSection(me: Person, lost: (why: string) => void): HTMLElement {
  const heading = h("h2", { id: "sign-in-accounts", tabindex: "-1" }, "Other ways you sign in");
  const alert = alertBox();
  const list = h("ul", { class: "plain sessions" });
  const status = h("p", { role: "status", class: "small" });
  const section = h(
    "section",
    { "aria-labelledby": "sign-in-accounts" },
    heading,
    paragraph(
      "Accounts elsewhere that sign in as you here. Unlink any you no longer use: it stops signing in as you for good.",
    ),
    alert.element,
    list,
    status,
  );
  section.hidden = true;

  async function refresh(): Promise<void> {
    const answer = await ask(alert, "GET", "/auth/account/accounts");
    if (answer === null) return;
    if (answer.status !== 200) return alert.show("We couldn't show these just now. Please reload the page.");
    const accounts = answer.body.accounts as LinkedAccountView[];
    list.replaceChildren(...accounts.map(row));
    if (accounts.length > 0) section.hidden = false;
    else if (!section.hidden) list.replaceChildren(h("li", {}, "No other accounts sign in as you."));
  }

  function row(account: LinkedAccountView): HTMLElement {
    const shown = account.label.charAt(0).toUpperCase() + account.label.slice(1);
    const unlink = button(["Unlink", unseen(` ${account.label}`)], { kind: "link" });
    unlink.addEventListener("click", () => {
      void whileBusy(unlink, "Unlinking…", async () => {
        alert.show(null);
        status.textContent = "";
        const path = `/auth/account/accounts/${encodeURIComponent(account.id)}`;
        const answer = await askConfirmed(alert, unlink, me, "DELETE", path);
        if (answer === null) return;
        if (answer === "cancelled") return void (status.textContent = "Nothing was changed.");
        if (says(answer, "last_way_in"))
          return alert.show("This is your only way in: add an email address before you unlink it.");
        // Gone already (unlinked elsewhere): the list is redrawn either way.
        if (answer.status !== 200 && answer.status !== 404) return alert.show(TRY_AGAIN);
        if (answer.body.signedOut === true)
          return lost(`You unlinked ${account.label}, which this browser was signed in through, so it's signed out.`);
        await refresh();
        status.textContent = `Unlinked ${account.label}. It no longer signs in as you.`;
        heading.focus();
      });
    });
    const used =
      account.lastSignInAt === null ? "never used" : `last used ${roughly(account.lastSignInAt, Date.now())}`;
    return h(
      "li",
      { class: "session-item" },
      h(
        "p",
        { class: "session-name" },
        shown,
        account.thisBrowser ? h("span", { class: "badge" }, "This browser signed in with it") : null,
      ),
      h("p", { class: "small" }, used),
      h("div", { class: "actions links" }, unlink),
    );
  }

  void refresh();
  return section;
}
