/**
 * A person's page, where they are signed in and with what: their live sessions (end one, or
 * every one: that browser is signed out at its next request), the apps they let in (disconnect
 * one) and their passkeys (remove one, for a lost or stolen device, after a question). Both only take access away, so neither asks
 * the administrator to confirm it's them.
 */
import type { PasskeyView } from "../../../functions/src/core/passkeys/passkey-view";
import type { SessionView } from "../../../functions/src/core/sessions/session-view";
import type { AppView } from "../../../functions/src/core/oidc/apps";
import { askAdmin, section, type Section } from "./door";
import { TRY_AGAIN } from "../shared/messages";
import { ago } from "./people-words";
import { deviceName, howSignedIn, roughly } from "../shared/session-words";
import { button, h, paragraph, unseen, whileBusy } from "../shared/ui";

/** A section whose list is read from `path`, and drawn again after each change in it. */
function listed<T>(where: Section, path: string, key: string, draw: (items: T[]) => Node[]): () => Promise<void> {
  return async () => {
    const answer = await askAdmin(where.alert, "GET", path);
    if (answer === null) return;
    if (answer.status !== 200) return where.alert.show(TRY_AGAIN);
    where.body.replaceChildren(...draw(answer.body[key] as T[]));
  };
}

export function sessionsSection(personId: string, changed: () => void): HTMLElement {
  const base = `/auth/people/${encodeURIComponent(personId)}`;
  const where = section("sessions", "Sessions", paragraph("The browsers and apps they're signed in to now."));
  const now = () => new Date();
  const end = async (path: string, words: (ended: number) => string) => {
    const answer = await askAdmin(where.alert, "DELETE", path);
    if (answer === null) return;
    if (answer.status !== 200)
      return where.alert.show(answer.status === 404 ? "That session had already ended." : TRY_AGAIN);
    await load();
    where.said(words(Number(answer.body.ended)));
    changed();
  };
  const load = listed<SessionView>(where, `${base}/sessions`, "sessions", (sessions) => {
    if (sessions.length === 0) return [paragraph("None: they're not signed in anywhere.")];
    const rows = sessions.map((s) => {
      const what = deviceName(s);
      const how = howSignedIn(s.methods);
      const one = button(["End", unseen(` the session of ${what}`)], { kind: "link" });
      one.addEventListener(
        "click",
        () =>
          void whileBusy(one, "Ending…", () =>
            end(
              `${base}/sessions/${encodeURIComponent(s.sessionId)}`,
              () => `Ended the session of ${what}. That browser is signed out at its next request.`,
            ),
          ),
      );
      return h(
        "li",
        { class: "entry" },
        h("p", { class: "who" }, what, s.current ? " (this browser: yours)" : ""),
        h(
          "p",
          { class: "small" },
          `Signed in ${ago(s.signedInAt, now())}${how === "" ? "" : ` ${how}`} · last used ${roughly(s.lastSeenAt, now().getTime())}`,
        ),
        one,
      );
    });
    const all = button("End every session", { kind: "secondary" });
    all.addEventListener(
      "click",
      () =>
        void whileBusy(all, "Ending…", () =>
          end(
            base + "/sessions",
            (n) => `Ended ${n === 1 ? "1 session" : `${n} sessions`}. They're signed out everywhere.`,
          ),
        ),
    );
    return [h("ul", { class: "plain entries" }, ...rows), all];
  });
  void load();
  return where.element;
}

/**
 * The apps they let in through this service's sign-in: each with when first and last used, and
 * whether it can act while they are away; "Disconnect" ends what it holds and tells it the
 * sign-in ended (core/oidc/apps). Only takes access away, as the rest of this file.
 */
export function appsSection(personId: string): HTMLElement {
  const base = `/auth/people/${encodeURIComponent(personId)}/apps`;
  const where = section("apps", "Apps", paragraph("Apps outside this service they signed in to with their account."));
  const load = listed<AppView>(where, base, "apps", (apps) =>
    apps.length === 0
      ? [paragraph("None.")]
      : [
          h(
            "ul",
            { class: "plain entries" },
            ...apps.map((app) => {
              const off = button(["Disconnect", unseen(` ${app.name}`)], { kind: "link" });
              off.addEventListener(
                "click",
                () =>
                  void whileBusy(off, "Disconnecting…", async () => {
                    const answer = await askAdmin(where.alert, "DELETE", `${base}/${encodeURIComponent(app.clientId)}`);
                    if (answer === null) return;
                    if (answer.status !== 200 && answer.status !== 404) return where.alert.show(TRY_AGAIN);
                    await load();
                    where.said(
                      `Disconnected ${app.name}. It is told they signed out, and can't act for them any more.`,
                    );
                  }),
              );
              return h(
                "li",
                { class: "entry" },
                h("p", { class: "who" }, app.name, app.actsWhileAway ? " (can act while they're away)" : ""),
                h(
                  "p",
                  { class: "small" },
                  `First signed in ${ago(app.firstUsedAt, new Date())} · last used ${roughly(app.lastUsedAt, Date.now())}`,
                ),
                off,
              );
            }),
          ),
        ],
  );
  void load();
  return where.element;
}

export function passkeysSection(personId: string, changed: () => void): HTMLElement {
  const base = `/auth/people/${encodeURIComponent(personId)}/passkeys`;
  const where = section("passkeys", "Passkeys");
  const day = (iso: string) => new Date(iso).toLocaleDateString(undefined, { dateStyle: "medium" });
  const load = listed<PasskeyView>(where, base, "passkeys", (passkeys) =>
    passkeys.length === 0
      ? [paragraph("None.")]
      : [h("ul", { class: "plain entries" }, ...passkeys.map((p) => row(p)))],
  );
  function row(passkey: PasskeyView): HTMLElement {
    const item = h("li", { class: "entry" });
    const used = passkey.lastUsedAt === null ? "not used yet" : `last used ${day(passkey.lastUsedAt)}`;
    const remove = button(["Remove", unseen(` passkey ${passkey.name}`)], { kind: "link" });
    remove.addEventListener("click", () => {
      const yes = button(`Remove “${passkey.name}”`, { kind: "primary" });
      const no = button("Keep it", { kind: "secondary", onclick: () => void load().then(() => where.heading.focus()) });
      const question = h(
        "p",
        { tabindex: "-1" },
        `Remove “${passkey.name}”? They can still sign in with a code sent to their email address.`,
      );
      yes.addEventListener(
        "click",
        () =>
          void whileBusy(yes, "Removing…", async () => {
            const answer = await askAdmin(where.alert, "DELETE", `${base}/${encodeURIComponent(passkey.id)}`);
            if (answer === null) return;
            if (answer.status !== 200 && answer.status !== 404) return where.alert.show(TRY_AGAIN);
            await load();
            where.said(`Removed the passkey “${passkey.name}”.`);
            changed();
          }),
      );
      item.replaceChildren(question, h("div", { class: "actions" }, yes, no));
      question.focus();
    });
    item.append(
      h("p", { class: "who" }, passkey.name),
      h(
        "p",
        { class: "small" },
        `Added ${day(passkey.createdAt)} · ${used}${passkey.suspect ? " · blocked: it was copied" : ""}`,
      ),
      remove,
    );
    return item;
  }
  void load();
  return where.element;
}
