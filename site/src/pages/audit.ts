/**
 * `/audit`: the audit trail for administrators (GET /auth/audit): every privileged act and every
 * refusal of one, newest first, filtered by who acted, whom it was about, its kind and how long
 * ago; a page at a time ("Show more"), and the same records to download as CSV. The filters are
 * kept in the address, so a link names what it shows.
 */
import { askAdmin, forAdministrators, personPage } from "../reviewers/door";
import { ago, exactly } from "../reviewers/people-words";
import { alertBox, button, choice, field, h, linkButton, paragraph, view, whileBusy } from "../shared/ui";

const PAGE = 50;

/** A record as GET /auth/audit answers it. */
interface AuditRecord {
  id: string;
  at: string;
  actor:
    | { kind: "admin"; personId: string; amr: string[]; lifted: boolean }
    | { kind: "operator"; name: string }
    | { kind: "person"; personId: string };
  kind: "person" | "client" | "invitation" | "operator" | "refusal";
  action: string;
  subjects: string[];
  detail: Record<string, string | string[]>;
  outcome: "done" | "refused";
  client: { via: "api" | "cli"; from: string | null };
}

const KINDS: Array<[string, string]> = [
  ["", "Any kind"],
  ["person", "Acts on people"],
  ["client", "Decisions on apps"],
  ["invitation", "Invitations"],
  ["operator", "Operator commands"],
  ["refusal", "Refusals"],
];

const SINCE: Array<[string, string]> = [
  ["1", "The last 24 hours"],
  ["7", "The last 7 days"],
  ["30", "The last 30 days"],
  ["", "Everything kept (400 days)"],
];

/** What was done, in words: the event a person's history names, an app's decision, a command, a refusal. */
function whatWasDone(r: AuditRecord): string {
  if (r.kind === "refusal") return `Refused: ${String(r.detail.method ?? "")} ${String(r.detail.route ?? "")}`.trim();
  if (r.action.startsWith("cli.")) return `Ran “${r.action.slice(4).replace(/\./g, " ")}”`;
  const words: Record<string, string> = {
    "person.changed": "Changed a person",
    "person.sessions-ended": "Ended a person's sessions",
    "person.passkeys-removed": "Removed a person's passkeys",
    "person.app-disconnected": "Disconnected an app from a person",
    "person.exported": "Took a copy of a person's data",
    "person.erased": "Erased a person",
    "person.created": "Added a person",
    "invitation.invited-someone": "Invited an address",
    "invitation.invitation-resent": "Sent an invitation again",
    "invitation.invitation-revoked": "Revoked an invitation",
    "client.approved": "Approved an app",
    "client.blocked": "Blocked an app",
  };
  return words[r.action] ?? r.action;
}

/** Who acted, with how an administrator's session began. */
function whoActed(r: AuditRecord): Node[] {
  const a = r.actor;
  if (a.kind === "operator") return [document.createTextNode(`Operator ${a.name}`)];
  const link = h("a", { href: personPage(a.personId) }, a.personId);
  if (a.kind === "person") return [document.createTextNode("Person "), link];
  const how = a.lifted ? " (passkey rule lifted)" : a.amr.some((m) => m === "hwk" || m === "swk") ? " (passkey)" : "";
  return [document.createTextNode("Administrator "), link, document.createTextNode(how)];
}

/** The particulars: what changed, and a refusal's reason. */
function particulars(r: AuditRecord): string[] {
  const lines: string[] = [];
  const fields = r.detail.fields;
  if (Array.isArray(fields) && fields.length > 0) lines.push(`Changed: ${fields.join(", ")}`);
  for (const field of ["status", "role", "projects", "groups"]) {
    const from = r.detail[`${field}.from`];
    const to = r.detail[`${field}.to`];
    if (to === undefined) continue;
    const said = (v: string | string[] | undefined) => (Array.isArray(v) ? v.join(", ") || "none" : v || "none");
    lines.push(`${field[0]?.toUpperCase()}${field.slice(1)}: ${said(from)} → ${said(to)}`);
  }
  if (typeof r.detail.reason === "string") lines.push(`Reason: ${r.detail.reason}`);
  return lines;
}

function entry(r: AuditRecord, now: Date): HTMLElement {
  const about =
    r.subjects.length === 0
      ? []
      : [
          h(
            "li",
            {},
            "About: ",
            ...r.subjects.flatMap((s, i) => [
              ...(i === 0 ? [] : [document.createTextNode(", ")]),
              r.kind === "person" ? h("a", { href: personPage(s) }, s) : document.createTextNode(s),
            ]),
          ),
        ];
  return h(
    "li",
    { class: "entry" },
    h("p", {}, h("strong", {}, whatWasDone(r)), r.outcome === "refused" ? " · refused" : ""),
    h(
      "p",
      { class: "small" },
      h("time", { datetime: r.at }, ago(r.at, now)),
      ` (${exactly(r.at)}) · `,
      ...whoActed(r),
      ` · ${r.client.via === "cli" ? "command line" : "web"}${r.client.from === null ? "" : ` (${r.client.from})`}`,
    ),
    h("ul", { class: "changes" }, ...about, ...particulars(r).map((line) => h("li", {}, line))),
  );
}

forAdministrators(() => {
  const here = new URL(window.location.href);
  const given = (name: string) => here.searchParams.get(name) ?? "";
  const alert = alertBox();
  const actor = field({
    label: "Who acted",
    name: "actor",
    optional: true,
    value: given("actor"),
    hint: "An administrator's id, or admin:, operator: or person: and an id.",
  });
  const person = field({
    label: "About whom",
    name: "person",
    optional: true,
    value: given("person"),
    hint: "A person's id, or an app's client id.",
  });
  const kind = choice({ label: "Kind", name: "kind", value: given("kind"), choices: KINDS });
  const since = choice({ label: "When", name: "days", value: given("days") || "7", choices: SINCE });
  const submit = button("Show", { type: "submit" });
  const form = h(
    "form",
    { role: "search", novalidate: true, "aria-label": "Audit trail" },
    h("div", { class: "filters" }, actor.element, person.element, kind.element, since.element),
    submit,
  );
  const results = h("ul", { class: "plain entries" });
  const found = h("p", { role: "status", class: "small" });
  const more = button("Show more", { kind: "secondary" });
  const download = h("a", { class: "button secondary", href: "/auth/audit?format=csv", download: "audit.csv" });
  download.textContent = "Download as CSV";
  let next: string | null = null;
  let query = "";

  /** The filters as the API takes them, and as this page's address keeps them. */
  function asked(): { api: URLSearchParams; page: URLSearchParams } {
    const api = new URLSearchParams();
    const page = new URLSearchParams();
    const who = actor.input.value.trim();
    if (who !== "") {
      api.set("actor", /^(admin|operator|person):/.test(who) ? who : `admin:${who}`);
      page.set("actor", who);
    }
    for (const [name, value] of [
      ["person", person.input.value.trim()],
      ["kind", kind.select.value],
    ] as const)
      if (value !== "") {
        api.set(name, value);
        page.set(name, value);
      }
    const days = since.select.value;
    if (days !== "") {
      api.set("since", new Date(Date.now() - Number(days) * 86_400_000).toISOString());
      page.set("days", days);
    } else page.set("days", "");
    return { api, page };
  }

  async function load(fresh: boolean): Promise<void> {
    alert.show(null);
    const cursor = fresh || next === null ? "" : `&cursor=${encodeURIComponent(next)}`;
    const answer = await askAdmin(alert, "GET", `/auth/audit?${query}${query === "" ? "" : "&"}limit=${PAGE}${cursor}`);
    if (answer === null) return;
    if (answer.status === 400)
      return alert.show("That search can't be made. “Who acted” takes admin:, operator: or person: and an id.");
    const records = answer.body.records as AuditRecord[];
    next = answer.body.next as string | null;
    const now = new Date();
    if (fresh) results.replaceChildren();
    results.append(...records.map((r) => entry(r, now)));
    more.hidden = next === null;
    const n = results.childElementCount;
    found.textContent =
      n === 0
        ? "Nothing was recorded."
        : next === null
          ? `${n} ${n === 1 ? "record" : "records"}.`
          : `Showing the newest ${n}.`;
    if (!fresh) {
      const first = results.children[n - records.length] as HTMLElement | undefined;
      first?.setAttribute("tabindex", "-1");
      first?.focus();
    }
  }

  function apply(): void {
    const { api, page } = asked();
    query = api.toString();
    download.setAttribute("href", `/auth/audit?${query}${query === "" ? "" : "&"}limit=1000&format=csv`);
    window.history.replaceState(null, "", `/audit?${page.toString()}`);
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    apply();
    void whileBusy(submit, "Loading…", () => load(true));
  });
  more.addEventListener("click", () => void whileBusy(more, "Loading…", () => load(false)));

  view(
    "Audit trail",
    paragraph(
      "Every act of an administrator or operator, and every refused one, newest first. People are named by id: open one to see who they are.",
    ),
    linkButton("People", "/people"),
    form,
    alert.element,
    found,
    h("p", {}, download),
    results,
    more,
  );
  apply();
  more.hidden = true;
  void load(true);
});
