/**
 * The review page's second section: the apps that registered themselves and wait for review,
 * oldest first (GET /auth/clients/queue), each with what it says of itself (marked unverified:
 * its name and addresses are its own word), how it registered, the hosts and full addresses it
 * sends people back to, its home page, when it came and who tried it. Approve lets it sign people
 * in (after confirming it's the reviewer, where the service asks); Block asks first. Everything
 * the app gave is shown as text, never as a link or markup.
 */
import type { Person } from "../shared/api";
import { askAdmin, section, type Section } from "./door";
import { ago, exactly } from "./people-words";
import { confirmItsYou } from "../sign-in/step-up";
import { usePasskeyInPlace } from "../sign-in/passkey-in-place";
import { button, confirmPanel, h, paragraph, unseen, whileBusy } from "../shared/ui";
import { TRY_AGAIN } from "../shared/messages";

const PAGE = 25;

interface WaitingApp {
  clientId: string;
  name: string;
  registeredBy: "self" | "document";
  documentOrigin: string | null;
  redirectUris: string[];
  clientUri: string | null;
  createdAt: string;
  triedBy: Array<{ personId: string; name: string; email: string | null }>;
}

type Decision = "approved" | "blocked";
type Row =
  { clientId: string; client: { review: string }; told: number } | { clientId: string; reason: string; error: string };

/** How the app came: the document its id names, or the registration endpoint. */
function howItCame(app: WaitingApp): string {
  return app.registeredBy === "document"
    ? `By its metadata document at ${app.documentOrigin ?? app.clientId}`
    : "Through the registration endpoint (it registered itself)";
}

/** The hosts an app sends people to, each once, in the order it gave them. */
function hostsOf(uris: string[]): string[] {
  return [...new Set(uris.map((u) => (URL.canParse(u) ? new URL(u).host : u)))];
}

function triedWords(p: WaitingApp["triedBy"][number]): string {
  const name = p.name === "" ? "No name given" : p.name;
  return p.email === null ? name : `${name} (${p.email})`;
}

/** What became of an app, in words. */
function outcomeWords(row: Row, decision: Decision): string {
  if ("client" in row) {
    const told =
      row.told === 0
        ? ""
        : ` ${row.told === 1 ? "1 person" : `${row.told} people`} who tried it will be told by email.`;
    return `${decision === "approved" ? "Approved: it can sign people in now." : "Blocked: it can't sign anyone in."}${told}`;
  }
  if (row.reason === "client_not_found") return "Not done: this app is no longer there.";
  return `Not done: ${row.error}`;
}

export function appQueue(me: Person): Section {
  const where = section(
    "apps",
    "Apps waiting for review",
    paragraph(
      "Apps that registered themselves, oldest first. Nobody can sign in to one until it is approved. What each says of itself is its own word: we haven't checked it.",
    ),
  );
  const list = h("ul", { class: "plain requests apps" });
  const more = button("Show more apps", { kind: "secondary" });
  let next: string | null = null;

  /** Asks for the decision, confirming it's the reviewer in place where the service wants it first. */
  async function decide(app: WaitingApp, decision: Decision, place: (panel: HTMLElement) => void): Promise<Row | null> {
    const post = async (): Promise<Row | null> => {
      const answer = await askAdmin(where.alert, "POST", "/auth/clients/review", {
        clientIds: [app.clientId],
        status: decision,
      });
      if (answer === null) return null;
      if (answer.status !== 200) return (where.alert.show(TRY_AGAIN), null);
      return (answer.body.results as Row[])[0] ?? null;
    };
    const row = await post();
    if (row === null || "client" in row) return row;
    const confirmed =
      row.reason === "passkey_required"
        ? await usePasskeyInPlace(place)
        : row.reason === "step_up_required" &&
          (await confirmItsYou(place, me, "This lets an app sign people in, and you signed in a while ago."));
    return confirmed ? post() : row;
  }

  /** An app once decided: what became of it, where its buttons were; focus there for a keyboard. */
  function settled(item: HTMLElement, row: Row, decision: Decision): void {
    const done = "client" in row;
    const result = h("p", { class: done ? "outcome done" : "outcome", tabindex: "-1" }, outcomeWords(row, decision));
    item.querySelector(".outcome")?.remove();
    item.querySelector(".decide")?.before(result);
    if (done) item.querySelector(".decide")?.remove();
    result.focus();
  }

  let shownSoFar = 0;
  function row(app: WaitingApp): HTMLElement {
    const n = ++shownSoFar;
    const approve = button(["Approve", unseen(` ${app.name}`)], { kind: "primary" });
    const item = h("li", { class: "request app", "data-client": app.clientId });
    approve.addEventListener("click", () => {
      void whileBusy(approve, "Approving…", async () => {
        where.alert.show(null);
        const result = await decide(app, "approved", (panel) => item.append(panel));
        if (result !== null) settled(item, result, "approved");
      });
    });
    const [alert, open, panel, status] = confirmPanel({
      id: `block-app-${n}`,
      open: "Block…",
      question: () => `Block ${app.name}?`,
      lines: [
        "Nobody can sign in to it, and what it was given stops working.",
        ...(app.triedBy.length === 0 ? [] : ["The people who tried it are told by email that it wasn't let in."]),
      ],
      yes: "Block this app",
      no: "Keep it waiting",
      kept: "Nothing was done.",
      busy: "Blocking…",
      async go({ panel: asked, keep }) {
        const result = await decide(app, "blocked", (p) => asked.after(p));
        if (result === null) return;
        asked.hidden = true;
        // Not done: the button is back, with why beside it.
        if (!("client" in result)) keep();
        settled(item, result, "blocked");
      },
    });
    // "Block…" on the screen; which app, for a screen reader, as Approve says it.
    open?.replaceChildren(h("span", { "aria-hidden": "true" }, "Block…"), unseen(`Block ${app.name}`));
    const hosts = hostsOf(app.redirectUris);
    item.append(
      h("h3", { class: "who" }, app.name, h("span", { class: "badge" }, "Unverified")),
      h(
        "dl",
        { class: "facts" },
        h("dt", {}, "How it registered"),
        h("dd", {}, howItCame(app)),
        h("dt", {}, hosts.length === 1 ? "Sends people back to the host" : "Sends people back to the hosts"),
        h("dd", {}, hosts.join(", ")),
        h("dt", {}, "Its exact addresses"),
        // As text: an address an app gave is never a link here.
        h("dd", {}, h("ul", { class: "plain uris" }, ...app.redirectUris.map((u) => h("li", {}, h("code", {}, u))))),
        h("dt", {}, "Its home page"),
        app.clientUri === null ? h("dd", { class: "small" }, "None given.") : h("dd", {}, h("code", {}, app.clientUri)),
        h("dt", {}, "Registered"),
        h(
          "dd",
          {},
          h("time", { datetime: app.createdAt }, ago(app.createdAt, new Date())),
          ` (${exactly(app.createdAt)})`,
        ),
        h("dt", {}, "Who tried to use it"),
        app.triedBy.length === 0
          ? h("dd", { class: "small" }, "Nobody yet.")
          : h("dd", {}, h("ul", { class: "plain tried" }, ...app.triedBy.map((p) => h("li", {}, triedWords(p))))),
      ),
      h("div", { class: "actions decide" }, approve, open as HTMLElement),
      alert as HTMLElement,
      panel as HTMLElement,
      status as HTMLElement,
    );
    return item;
  }

  async function load(): Promise<boolean> {
    const cursor = next === null ? "" : `&cursor=${encodeURIComponent(next)}`;
    const answer = await askAdmin(where.alert, "GET", `/auth/clients/queue?limit=${PAGE}${cursor}`);
    if (answer?.status !== 200) {
      if (answer !== null) where.alert.show("We can't show the apps right now. Please reload the page in a moment.");
      return false;
    }
    const apps = answer.body.clients as WaitingApp[];
    next = answer.body.next as string | null;
    list.append(...apps.map(row));
    if (list.childElementCount === 0) list.append(h("li", { class: "small" }, "No apps are waiting for review."));
    more.hidden = next === null;
    return true;
  }

  more.addEventListener("click", () => {
    void whileBusy(more, "Loading…", async () => {
      const before = list.childElementCount;
      if (await load()) list.children[before]?.querySelector<HTMLElement>("button")?.focus();
    });
  });
  more.hidden = true;
  where.body.append(list, more);
  void load();
  return where;
}
