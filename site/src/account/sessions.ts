/**
 * Where the person is signed in, on `/account`: each live session (browser and system, how and
 * when they signed in, roughly when it was last used, and which one is this browser), each of the
 * others to sign out, and all of them at once. Ending one is the service's own server-side end, as
 * logout's: the other browser is refused at its next request.
 */
import type { SessionView } from "../../../functions/src/core/sessions/session-view";
import { ask } from "../shared/api";
import { TRY_AGAIN } from "../shared/messages";
import { deviceName, howSignedIn, roughly } from "../shared/session-words";
import { alertBox, button, h, paragraph, whileBusy } from "../shared/ui";

const WHEN = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

export function sessionsSection(): HTMLElement {
  const heading = h("h2", { id: "sessions", tabindex: "-1" }, "Where you're signed in");
  const alert = alertBox();
  const list = h("ul", { class: "plain sessions" });
  const status = h("p", { role: "status", class: "small" });
  const others = button("Sign out everywhere else", { kind: "secondary" });
  others.hidden = true;
  const section = h(
    "section",
    { "aria-labelledby": "sessions" },
    heading,
    paragraph("Every browser and device signed in to your account. Sign out any you don't recognise or no longer use."),
    alert.element,
    list,
    others,
    status,
  );

  async function refresh(): Promise<void> {
    const answer = await ask(alert, "GET", "/auth/sessions");
    if (answer === null) return;
    if (answer.status !== 200)
      return alert.show("We couldn't show where you're signed in just now. Please reload the page.");
    const sessions = answer.body.sessions as SessionView[];
    list.replaceChildren(...sessions.map(row));
    others.hidden = !sessions.some((s) => !s.current);
  }

  function row(session: SessionView): HTMLElement {
    const now = Date.now();
    const name = deviceName(session);
    const how = howSignedIn(session.methods);
    const item = h(
      "li",
      { class: "session-item" },
      h("p", { class: "session-name" }, name, session.current ? h("span", { class: "badge" }, "This browser") : null),
      h(
        "p",
        { class: "small" },
        `Signed in ${WHEN.format(new Date(session.signedInAt))}${how === "" ? "" : ` ${how}`}`,
        session.current ? "" : ` · last used ${roughly(session.lastSeenAt, now)}`,
      ),
    );
    if (session.current) return item;
    const end = button("Sign out", { kind: "link" });
    end.setAttribute("aria-label", `Sign out ${name}, signed in ${WHEN.format(new Date(session.signedInAt))}`);
    end.addEventListener("click", () => {
      void whileBusy(end, "Signing out…", async () => {
        alert.show(null);
        const answer = await ask(alert, "DELETE", `/auth/sessions/${encodeURIComponent(session.sessionId)}`);
        if (answer === null) return;
        // Already gone (ended elsewhere, or expired): the list is redrawn either way.
        if (answer.status !== 200 && answer.status !== 404) return alert.show(TRY_AGAIN);
        await refresh();
        status.textContent = `Signed out ${name}.`;
        heading.focus();
      });
    });
    item.append(h("div", { class: "actions links" }, end));
    return item;
  }

  others.addEventListener("click", () => {
    void whileBusy(others, "Signing out…", async () => {
      alert.show(null);
      const answer = await ask(alert, "POST", "/auth/sessions/end-others");
      if (answer === null) return;
      if (answer.status !== 200) return alert.show(TRY_AGAIN);
      const ended = Number(answer.body.ended);
      await refresh();
      status.textContent =
        ended === 1 ? "Signed out 1 other browser." : `Signed out ${ended} other browsers and devices.`;
      heading.focus();
    });
  });

  void refresh();
  return section;
}
