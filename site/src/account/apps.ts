/**
 * The apps the person let in through this service's sign-in (its OpenID Connect provider), on
 * `/account`: each app's name (marked unverified where it registered itself), when it was first and
 * last used, and whether it can act while the person is away; "Disconnect" ends what the app holds (its refresh tokens) and tells it the
 * person's sign-in to it has ended (core/oidc/apps). Hidden while there are none.
 */
import type { AppView } from "../../../functions/src/core/oidc/apps";
import { ask } from "../shared/api";
import { TRY_AGAIN } from "../shared/messages";
import { roughly } from "../shared/session-words";
import { alertBox, button, h, paragraph, whileBusy } from "../shared/ui";

const DAY = new Intl.DateTimeFormat(undefined, { dateStyle: "medium" });

export function appsSection(): HTMLElement {
  const heading = h("h2", { id: "apps", tabindex: "-1" }, "Apps you've let in");
  const alert = alertBox();
  const list = h("ul", { class: "plain sessions" });
  const status = h("p", { role: "status", class: "small" });
  const section = h(
    "section",
    { "aria-labelledby": "apps" },
    heading,
    paragraph("Apps outside this service you signed in to with your account. Disconnect any you no longer use."),
    alert.element,
    list,
    status,
  );
  section.hidden = true;

  async function refresh(): Promise<void> {
    const answer = await ask(alert, "GET", "/auth/account/apps");
    if (answer === null) return;
    if (answer.status !== 200) return alert.show("We couldn't show your apps just now. Please reload the page.");
    const apps = answer.body.apps as AppView[];
    list.replaceChildren(...apps.map(row));
    // Shown once there is something to show, or to say that the last one went.
    if (apps.length > 0) section.hidden = false;
    else if (!section.hidden) list.replaceChildren(h("li", {}, "No apps are signed in to your account."));
  }

  function row(app: AppView): HTMLElement {
    const disconnect = button("Disconnect", { kind: "link" });
    disconnect.setAttribute("aria-label", `Disconnect ${app.name}`);
    disconnect.addEventListener("click", () => {
      void whileBusy(disconnect, "Disconnecting…", async () => {
        alert.show(null);
        const answer = await ask(alert, "DELETE", `/auth/account/apps/${encodeURIComponent(app.clientId)}`);
        if (answer === null) return;
        // Gone already (disconnected elsewhere): the list is redrawn either way.
        if (answer.status !== 200 && answer.status !== 404) return alert.show(TRY_AGAIN);
        await refresh();
        status.textContent = `Disconnected ${app.name}. It is told you signed out, and can't act for you any more.`;
        heading.focus();
      });
    });
    return h(
      "li",
      { class: "session-item" },
      h(
        "p",
        { class: "session-name" },
        app.name,
        // An app that registered itself: its name is its own claim, as the consent page said.
        app.unverified ? h("span", { class: "badge" }, "Unverified") : null,
        app.actsWhileAway ? h("span", { class: "badge" }, "Can act while you're away") : null,
      ),
      h(
        "p",
        { class: "small" },
        `First signed in ${DAY.format(new Date(app.firstUsedAt))} · last used ${roughly(app.lastUsedAt, Date.now())}`,
      ),
      h("div", { class: "actions links" }, disconnect),
    );
  }

  void refresh();
  return section;
}
