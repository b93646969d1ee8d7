/**
 * How the reviewer pages say what the people administration endpoints answer: a person's
 * standing, what they proved when they came, when, and what their history records. Pure, and
 * plain text only: whatever a person or a provider wrote is shown as text by the pages, never
 * parsed as HTML.
 */
import type { AdminPersonView, HistoryEntryView } from "../../../functions/src/core/people/admin-view";

export type AdminPerson = AdminPersonView;
export type HistoryEntry = HistoryEntryView;

export const STATUS_WORDS: Record<AdminPerson["status"], string> = {
  pending: "Waiting for review",
  approved: "Approved",
  rejected: "Rejected",
};

export const ROLE_WORDS: Record<AdminPerson["role"], string> = { user: "Member", admin: "Administrator" };

/** A project as the pages name it: `*` is every project. */
export function projectName(project: string): string {
  return project === "*" ? "Every project" : project;
}

/** What to call a person: their name, else their address or number, else their account. */
export function whoIs(person: Pick<AdminPerson, "name" | "email" | "phones" | "uid">): string {
  return person.name || person.email || person.phones[0] || person.uid || "Someone with no name or address";
}

const BRIDGES: Record<string, string> = {
  gaming: "through the gaming sign-in",
  federated: "through a provider's sign-in",
};

/** What the operator's rule for the person's address's domain suggests they be given, in words; null for none. */
export function suggestionWords(suggestion: AdminPerson["suggestion"]): string | null {
  if (suggestion === null) return null;
  const projects = suggestion.projects.map(projectName).join(", ") || "no projects";
  const groups = suggestion.groups.length === 0 ? "" : `; groups ${suggestion.groups.join(", ")}`;
  return `The rule for ${suggestion.rule} suggests: ${projects}${groups}`;
}

/** What the person proved when they first came, as the reviewer should read it. */
export function proved(origin: AdminPerson["origin"]): string {
  if (origin === null) return "Added by an administrator";
  if (origin.via === "email") return `Proved the address ${origin.address}`;
  const through =
    origin.bridge === null ? "at the identity provider" : (BRIDGES[origin.bridge] ?? `through ${origin.bridge}`);
  const account = origin.account === "" ? "an account" : `the account ${origin.account}`;
  const named = origin.displayName === "" ? "" : `, named “${origin.displayName}”`;
  // A provider the operator does not take at its word: the address is its claim, proved by nobody.
  const claim =
    origin.claimedAddress === undefined
      ? ""
      : `. It gave the address ${origin.claimedAddress}, not proven: the person does not hold it`;
  return `Signed in ${through} with ${account} at ${origin.provider}${named}${claim}`;
}

const EXACT = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
const RELATIVE = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ["year", 365 * 24 * 3600],
  ["month", 30 * 24 * 3600],
  ["week", 7 * 24 * 3600],
  ["day", 24 * 3600],
  ["hour", 3600],
  ["minute", 60],
];

/** "3 hours ago", "yesterday", "just now": how long ago `iso` was, from `now`. */
export function ago(iso: string, now: Date): string {
  const seconds = Math.round((now.getTime() - new Date(iso).getTime()) / 1000);
  if (seconds < 60) return "just now";
  const [unit, size] = UNITS.find(([, s]) => seconds >= s) as [Intl.RelativeTimeFormatUnit, number];
  return RELATIVE.format(-Math.floor(seconds / size), unit);
}

/** The date and time of `iso`, in the reader's own format and time zone. */
export function exactly(iso: string): string {
  return EXACT.format(new Date(iso));
}

/** The fields of the history, as a reviewer names them. */
const FIELDS: Record<string, string> = {
  status: "Status",
  role: "Role",
  projects: "Projects",
  groups: "Groups",
  name: "Name",
  emails: "Email addresses",
  phones: "Phone numbers",
  uids: "Accounts at the identity provider",
  note: "Note",
  sessions: "Sessions",
  passkeys: "Passkeys",
  rule: "The rule for the domain",
  apps: "Apps they let in",
};

type Value = string | string[] | null;

function valueWords(field: string, value: string): string {
  if (field === "status") return STATUS_WORDS[value as AdminPerson["status"]] ?? value;
  if (field === "role") return ROLE_WORDS[value as AdminPerson["role"]] ?? value;
  if (field === "projects") return projectName(value);
  return value === "" ? "none" : `“${value}”`;
}

function listWords(field: string, items: string[]): string {
  return items.map((item) => (field === "projects" ? projectName(item) : item)).join(", ");
}

/** One field's change in words: "Status: Waiting for review → Approved", "Projects: added calendar; removed status". */
export function changeWords(field: string, from: Value, to: Value): string {
  const label = FIELDS[field] ?? field;
  if (field === "sessions" && Array.isArray(from))
    return `Ended ${from.length === 1 ? "a session" : `${from.length} sessions`}`;
  if (field === "passkeys" && Array.isArray(from)) return `Removed passkeys: ${from.join(", ")}`;
  if (field === "recoveryCodes" && typeof from === "string" && to === null)
    return `Removed recovery codes (${from} unused)`;
  if (Array.isArray(from) || Array.isArray(to)) {
    const before = Array.isArray(from) ? from : [];
    const after = Array.isArray(to) ? to : [];
    const added = after.filter((x) => !before.includes(x));
    const removed = before.filter((x) => !after.includes(x));
    const parts = [
      added.length > 0 ? `added ${listWords(field, added)}` : "",
      removed.length > 0 ? `removed ${listWords(field, removed)}` : "",
    ].filter(Boolean);
    return `${label}: ${parts.join("; ") || "reordered"}`;
  }
  if (from === null) return `${label}: ${valueWords(field, to ?? "")}`;
  return `${label}: ${valueWords(field, from)} → ${valueWords(field, to ?? "")}`;
}

const VIA: Record<HistoryEntry["via"], string> = {
  api: "",
  review: "",
  cli: " on the command line",
  "request-access": " by requesting access",
  bridge: " by signing in through a bridge",
  "sign-in": " by signing in",
  seed: " when the service was set up",
  account: " on their account page",
  invitation: ", who invited them",
  rule: " by the rule for their address's domain",
};

/** Who did it, and how: "admin@example.test", "Ops (operator) on the command line", "They did, by requesting access". */
export function byWhom(entry: Pick<HistoryEntry, "by" | "via">): string {
  const how = VIA[entry.via] ?? "";
  if (entry.by.kind === "admin") return `${entry.by.email ?? "An administrator"}${how}`;
  if (entry.by.kind === "operator") return `${entry.by.name} (operator)${how}`;
  if (entry.by.kind === "person") return `The person themself${how}`;
  return `The service${how}`;
}

/** The person an administrator's own entry is about, by id (they may be gone). */
function personNamed(entry: Pick<HistoryEntry, "changes">): string {
  const to = entry.changes.person?.to;
  return typeof to === "string" ? `person ${to}` : "a person";
}

/** What the entry records, a line a change. */
export function whatHappened(entry: Pick<HistoryEntry, "event" | "changes">): string[] {
  const lines = Object.entries(entry.changes).map(([field, c]) => changeWords(field, c.from, c.to));
  if (entry.event === "created") return ["Came to the service", ...lines];
  if (entry.event === "exported") return ["A copy of everything kept about them was taken"];
  if (entry.event === "erased") return ["Deleted, with everything kept about them"];
  if (entry.event === "exported-someone") return [`Took a copy of someone's data (${personNamed(entry)})`];
  const invited = entry.changes.invited?.to;
  const address = typeof invited === "string" ? invited : "an address";
  if (entry.event === "invited-someone") return [`Invited ${address}`];
  if (entry.event === "invitation-resent") return [`Sent ${address} their invitation again`];
  if (entry.event === "invitation-revoked") return [`Revoked the invitation of ${address}`];
  if (entry.event === "erased-someone")
    return [`Deleted someone, with everything kept about them (${personNamed(entry)})`];
  return lines.length > 0 ? lines : ["Nothing changed"];
}

/** The words for what the identity provider did not accept, after a change that was saved. */
export function syncErrorWords(errors: Array<{ uid: string }>): string | null {
  if (errors.length === 0) return null;
  const uids = errors.map((e) => e.uid).join(", ");
  return `The change was saved, but the identity provider did not accept ending ${uids}'s sessions: try again.`;
}
