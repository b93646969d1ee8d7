/**
 * Where the person is signed in, on `/account`: each live session (browser and system, how and
 * when they signed in, roughly when it was last used, and which one is this browser), each of the
 * others to sign out, and all of them at once. Ending one is the service's own server-side end, as
 * logout's: the other browser is refused at its next request.
 */
import type { SessionView } from "../../functions/src/core/sessions/session-view";
import { call, Unreachable } from "./api";
import { TRY_AGAIN, UNREACHABLE } from "./messages";
import { alertBox, button, h, paragraph, whileBusy } from "./ui";

/** How a sign-in was made, in words, from its RFC 8176 methods. */
export function howSignedIn(methods: string[]): string {
  if (methods.includes("hwk") || methods.includes("swk")) return "with a passkey";
  if (methods.includes("otp")) return "with a code by email";
  if (methods.includes("fed")) return "through another service";
  if (methods.includes("sms")) return "with a code by text message";
  if (methods.includes("pwd")) return "with a password";
  return "";
}

const RELATIVE = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
const WHEN = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

/** "just now", "12 minutes ago", "yesterday": rough on purpose, as the service records it (to ten minutes). */
export function roughly(iso: string, now: number): string {
  const minutes = Math.round((new Date(iso).getTime() - now) / 60_000);
  if (minutes > -10) return "in the last few minutes";
  if (minutes > -60) return RELATIVE.format(minutes, "minute");
  const hours = Math.round(minutes / 60);
  if (hours > -24) return RELATIVE.format(hours, "hour");
  return RELATIVE.format(Math.round(hours / 24), "day");
}

/** "Firefox on Linux", or the one the service could name. */
export function deviceName(session: Pick<SessionView, "browser" | "system">): string {
  const known = (v: string) => v !== "" && v !== "Unknown";
  if (known(session.browser) && known(session.system)) return `${session.browser} on ${session.system}`;
  if (known(session.browser)) return session.browser;
  if (known(session.system)) return `A browser on ${session.system}`;
  return "An unknown browser";
}

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

  async function ask(method: "GET" | "POST" | "DELETE", path: string) {
    try {
      return await call(method, path);
    } catch (err) {
      if (!(err instanceof Unreachable)) throw err;
      alert.show(UNREACHABLE);
      return null;
    }
  }

  async function refresh(): Promise<void> {
    const answer = await ask("GET", "/auth/sessions");
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
        const answer = await ask("DELETE", `/auth/sessions/${encodeURIComponent(session.sessionId)}`);
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
      const answer = await ask("POST", "/auth/sessions/end-others");
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
