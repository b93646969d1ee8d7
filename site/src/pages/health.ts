/**
 * `/health`: the service's health for administrators (GET /auth/health): what stands now (people
 * waiting for review, the outbox per lane, unfinished erasures), and over the last 24 hours (per
 * hour) or 7 days (per day): sign-ins by way in, email codes by outcome, code requests and
 * sign-ins refused by why, and deliveries to apps given up. Each chart is an SVG image with a summary, a legend and its numbers as a table
 * (reviewers/health-chart.ts). The period is kept in the address (`?window=7d`).
 */
import { askAdmin, forAdministrators } from "../reviewers/door";
import { barChart, counted, type Series } from "../reviewers/health-chart";
import { alertBox, button, choice, h, linkButton, paragraph, view, whileBusy } from "../shared/ui";
import type { HealthReport, ReportWindow, Way } from "../../../functions/src/core/model/health-report";

type Window = ReportWindow;

const WINDOWS: Array<[Window, string]> = [
  ["24h", "Last 24 hours"],
  ["7d", "Last 7 days"],
];

/** Each way in, its name and its colour: the same colour for the same way whichever are shown. */
const WAYS: Record<Way, { name: string; tone: string }> = {
  passkey: { name: "Passkey", tone: "tone-blue" },
  code: { name: "Email code", tone: "tone-orange" },
  provider: { name: "Another provider", tone: "tone-teal" },
  password: { name: "Password", tone: "tone-purple" },
  "recovery code": { name: "Recovery code", tone: "tone-red" },
  other: { name: "Other", tone: "tone-grey" },
};
const ORDER = Object.keys(WAYS) as Way[];

/** What each refusal's reason means, in words; a reason this page doesn't know is shown as itself. */
const REASONS: Record<string, string> = {
  resend_too_soon: "Asked again within a minute",
  hourly_limit: "Past the address's hourly limit",
  client_budget: "Past a network's budget",
  request_budget: "Past a network's requests for access",
  service_budget: "Past the service's budget",
  domain_budget: "Past a domain's budget",
  address_locked: "Address locked after wrong codes",
  email_invalid: "Not an email address",
  purpose_invalid: "Not a kind of code there is",
  fields_required: "Something missing",
  unknown_field: "Something unexpected",
  code_invalid: "Wrong code",
  code_expired: "Code expired",
  code_exhausted: "Too many wrong codes",
  code_malformed: "Not a code",
  invalid_token: "Proof not accepted",
  signin_failed: "Passkey or recovery code not accepted",
  recovery_budget: "Past the recovery codes' budget",
  pending: "Waiting for approval",
  rejected: "Not approved",
  no_account: "No account",
};
const REASON_TONES = ["tone-orange", "tone-blue", "tone-teal", "tone-purple", "tone-red", "tone-grey"];

/** A series per reason, most first (as the report orders them), each named in words. */
const reasonSeries = (rs: HealthReport["refused"]["codes"]): Series[] =>
  rs.map((r, i) => ({
    name: REASONS[r.reason] ?? r.reason,
    counts: r.counts,
    tone: REASON_TONES[i % REASON_TONES.length] as string,
  }));

const LANES: Record<string, string> = {
  mail: "Mail",
  apps: "Deliveries to apps",
  bulk: "Invitations",
};

/** "under a minute", "5 minutes", "1 hour 30 minutes", "2 days 3 hours". */
function howLong(seconds: number): string {
  const unit = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  if (seconds < 60) return "under a minute";
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return unit(minutes, "minute");
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return [unit(hours, "hour"), minutes % 60 === 0 ? "" : unit(minutes % 60, "minute")].join(" ").trim();
  const days = Math.floor(hours / 24);
  return [unit(days, "day"), hours % 24 === 0 ? "" : unit(hours % 24, "hour")].join(" ").trim();
}

// Hours in the reader's own time zone; the days are the service's, which are UTC days.
const HOUR = new Intl.DateTimeFormat(undefined, { hour: "numeric" });
const HOUR_IN_FULL = new Intl.DateTimeFormat(undefined, { weekday: "short", hour: "numeric", minute: "2-digit" });
const DAY = new Intl.DateTimeFormat(undefined, { weekday: "short", timeZone: "UTC" });
const DAY_IN_FULL = new Intl.DateTimeFormat(undefined, {
  weekday: "short",
  day: "numeric",
  month: "short",
  timeZone: "UTC",
});
const WHEN = new Intl.DateTimeFormat(undefined, { weekday: "short", hour: "numeric", minute: "2-digit" });
const TIME = new Intl.DateTimeFormat(undefined, { timeStyle: "short" });

/** The buckets as the charts name them: on the axis, in the table, what the table's first column is, and its note. */
function bucketWords(report: HealthReport) {
  const dates = report.buckets.map((b) => new Date(b));
  if (report.window === "24h")
    return {
      ticks: dates.map((d) => HOUR.format(d)),
      rows: dates.map((d) => HOUR_IN_FULL.format(d)),
      bucket: "Hour",
      note: "by the hour, in your time zone",
      // On round hours: midnight, 6:00, 12:00…
      labelled: (i: number, every: number) => (dates[i]?.getHours() ?? 0) % every === 0,
    };
  return {
    ticks: dates.map((d) => DAY.format(d)),
    rows: dates.map((d) => DAY_IN_FULL.format(d)),
    bucket: "Day",
    note: "by the day, in UTC",
    labelled: undefined,
  };
}

/** A line of "Right now": its name, and what stands. */
function fact(name: string, ...said: Array<Node | string>): HTMLElement[] {
  return [h("dt", {}, name), h("dd", {}, ...said)];
}

function now(report: HealthReport): HTMLElement {
  const { waiting, erasures } = report;
  const waitingWords =
    waiting.people === 0
      ? "Nobody"
      : `${waiting.people} ${waiting.people === 1 ? "person" : "people"}${
          waiting.oldestSeconds === null ? "" : `, the longest for ${howLong(waiting.oldestSeconds)}`
        }`;
  const lanes = h(
    "ul",
    { class: "plain lanes" },
    ...report.outbox.map((l) =>
      h(
        "li",
        {},
        h("span", { class: "lane" }, `${LANES[l.lane] ?? l.lane}: `),
        l.pending === 0
          ? "nothing waiting"
          : `${l.pending} waiting${l.oldestSeconds === null ? "" : `, the oldest for ${howLong(l.oldestSeconds)}`}`,
      ),
    ),
  );
  const erasureWords =
    erasures.unfinished === 0
      ? "None"
      : `${erasures.unfinished}${erasures.oldestSeconds === null ? "" : `, the oldest begun ${howLong(erasures.oldestSeconds)} ago`}`;
  return h(
    "dl",
    { class: "details health-now" },
    ...fact(
      "Waiting for review",
      waitingWords,
      waiting.people === 0 ? "" : " · ",
      waiting.people === 0 ? "" : h("a", { href: "/review" }, "Review requests"),
    ),
    ...fact("Outbox", report.outbox.length === 0 ? "Nothing waiting" : lanes),
    ...fact("Unfinished erasures", erasureWords),
  );
}

function deliveries(report: HealthReport, period: string): HTMLElement {
  if (report.deliveriesGivenUp.length === 0)
    return paragraph(`No deliveries to apps were given up in the ${period.toLowerCase()}.`);
  return h(
    "table",
    { class: "rows numbers" },
    h("caption", {}, `Deliveries given up, by app (${period.toLowerCase()})`),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "App"), h("th", { scope: "col" }, "Given up"))),
    h(
      "tbody",
      {},
      ...report.deliveriesGivenUp.map((d) =>
        h("tr", {}, h("th", { scope: "row" }, d.app), h("td", {}, counted(d.count, report.partial))),
      ),
    ),
  );
}

function section(id: string, title: string, level: "h2" | "h3", ...content: Array<Node | null>): HTMLElement {
  return h("section", { "aria-labelledby": id }, h(level, { id }, title), ...content);
}

forAdministrators(() => {
  const here = new URL(window.location.href);
  const asked: Window = here.searchParams.get("window") === "7d" ? "7d" : "24h";
  const alert = alertBox();
  const period = choice({ label: "Period", name: "window", value: asked, choices: WINDOWS });
  const submit = button("Show", { type: "submit", kind: "secondary" });
  const form = h("form", { novalidate: true, class: "period" }, period.element, submit);
  const found = h("p", { role: "status", class: "small" });
  const standing = h("div", {});
  const over = h("div", {});

  function draw(report: HealthReport): void {
    const words = bucketWords(report);
    const name = WINDOWS.find(([w]) => w === report.window)?.[1] ?? "";
    const signIns: Series[] = ORDER.flatMap((way) => {
      const s = report.signIns.find((x) => x.way === way);
      return s === undefined ? [] : [{ ...WAYS[way], counts: s.counts }];
    });
    // A way this page doesn't know yet is still counted, as itself.
    for (const s of report.signIns)
      if (!(s.way in WAYS)) signIns.push({ name: s.way, counts: s.counts, tone: "tone-grey" });
    const codes: Series[] = [
      { name: "Sent", counts: report.codes.sent, tone: "tone-blue" },
      { name: "Given up", counts: report.codes.givenUp, tone: "tone-red" },
      { name: "Not needed", counts: report.codes.notNeeded, tone: "tone-grey" },
    ];
    const common = { ...words, partial: report.partial };
    standing.replaceChildren(section("now", "Right now", "h2", now(report)));
    over.replaceChildren(
      section(
        "sign-ins",
        "Sign-ins by way in",
        "h3",
        paragraph(
          h("span", { class: "small" }, "Each sign-in that began a session, by how the person proved who they are."),
        ),
        barChart({
          ...common,
          title: `Sign-ins by way in, ${name.toLowerCase()}`,
          series: signIns,
          none: "No sign-ins",
        }),
      ),
      section(
        "codes",
        "Email codes",
        "h3",
        paragraph(
          h(
            "span",
            { class: "small" },
            "Codes asked for: sent; given up (the mail could not be sent); not needed (no account has the address, so none was sent).",
          ),
        ),
        barChart({ ...common, title: `Email codes, ${name.toLowerCase()}`, series: codes, none: "No codes asked for" }),
      ),
      section(
        "codes-refused",
        "Code requests refused",
        "h3",
        paragraph(
          h(
            "span",
            { class: "small" },
            "Requests for an email code the service turned down, by why: its limits and budgets first.",
          ),
        ),
        barChart({
          ...common,
          title: `Code requests refused, ${name.toLowerCase()}`,
          series: reasonSeries(report.refused.codes),
          none: "No code requests refused",
        }),
      ),
      section(
        "sign-ins-refused",
        "Sign-ins refused",
        "h3",
        paragraph(
          h(
            "span",
            { class: "small" },
            "Sign-ins the service turned down (a wrong or expired code, a proof not accepted, an account not approved), by why.",
          ),
        ),
        barChart({
          ...common,
          title: `Sign-ins refused, ${name.toLowerCase()}`,
          series: reasonSeries(report.refused.signIns),
          none: "No sign-ins refused",
        }),
      ),
      section("deliveries", "Deliveries to apps given up", "h3", deliveries(report, name)),
    );
    const from =
      report.window === "24h"
        ? WHEN.format(new Date(report.from))
        : `the start of ${DAY_IN_FULL.format(new Date(report.from))} (UTC)`;
    found.textContent = [
      `${name}: from ${from} to now, read at ${TIME.format(new Date())}.`,
      report.partial ? "There was more than could be read, so the counts are at least these." : "",
    ]
      .filter(Boolean)
      .join(" ");
  }

  async function load(): Promise<void> {
    alert.show(null);
    const window_ = period.select.value as Window;
    const answer = await askAdmin(alert, "GET", `/auth/health?window=${window_}`);
    if (answer === null) return;
    if (answer.status === 400) return alert.show("That period can't be shown. Choose the last 24 hours or 7 days.");
    if (answer.status !== 200) return alert.show("The service's health can't be shown right now. Please try again.");
    draw(answer.body as unknown as HealthReport);
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const chosen = period.select.value;
    window.history.replaceState(null, "", chosen === "24h" ? "/health" : `/health?window=${chosen}`);
    void whileBusy(submit, "Loading…", load);
  });

  view(
    "Service health",
    paragraph("How people sign in, the email codes asked for, what was refused, and what is waiting now."),
    linkButton("People", "/people"),
    alert.element,
    standing,
    h("section", { "aria-labelledby": "over-time" }, h("h2", { id: "over-time" }, "Over time"), form, found, over),
  );
  void whileBusy(submit, "Loading…", load);
});
