/** How the CLI prints a person and their history: a line, a description, the JSON view. */
import type { HistoryEntry } from "../../core/model/history";
import type { Person } from "../../core/model/person";
import { byPasskey } from "../../core/model/passkey-rule";

export function view(p: Person) {
  return {
    id: p.id,
    name: p.name,
    origin: p.origin,
    note: p.note,
    emails: p.emails,
    phones: p.phones,
    status: p.status,
    role: p.role,
    projects: p.projects,
    groups: p.groups,
    accounts: p.uids.length,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}

export const reach = (p: Person) => p.emails[0] ?? p.phones[0] ?? "-";
export const line = (p: Person) => `${p.id}  ${reach(p)}  ${p.status}  ${p.role}  [${p.projects.join(",")}]  ${p.name}`;

export function describe(p: Person): string {
  return Object.entries({ ...view(p), origin: proved(p) })
    .map(([k, value]) => `${k}: ${Array.isArray(value) ? value.join(", ") : String(value)}`)
    .join("\n");
}

/** What a person proved when they came, in words. */
export function proved(p: Person): string {
  const o = p.origin;
  if (o === null) return "added by an administrator";
  if (o.via === "email") return `the address ${o.address}`;
  const name = o.displayName === "" ? "" : ` (${o.displayName})`;
  const claim = o.claimedAddress === undefined ? "" : `, claiming ${o.claimedAddress} (not proven, not held)`;
  return `the ${o.provider} account ${o.account || "(unnamed)"}${name}${o.bridge === null ? "" : ` through the ${o.bridge} bridge`}${claim}`;
}

/** How an administrator's session began, as their act is listed: a passkey, another way, under a lift. */
function signInText(by: Extract<HistoryEntry["by"], { kind: "admin" }>): string {
  if (by.amr === undefined) return "";
  const how = byPasskey(by.amr) ? "passkey" : by.amr.join(",") || "?";
  return ` (${how}${by.lifted ? ", rule lifted" : ""})`;
}

export function actorText(by: HistoryEntry["by"]): string {
  if (by.kind === "admin") return `admin ${by.email ?? by.personId}${signInText(by)}`;
  if (by.kind === "operator") return `operator ${by.name}`;
  return by.kind === "person" ? "the person" : "the service";
}

export function changeText(changes: HistoryEntry["changes"]): string {
  const shown = (v: unknown) =>
    v === null ? "-" : Array.isArray(v) ? `[${v.join(",")}]` : v === "" ? '""' : String(v);
  return Object.entries(changes)
    .map(([field, { from, to }]) => `${field} ${shown(from)} -> ${shown(to)}`)
    .join("; ");
}

export const named = (p: Person) => `${p.name || reach(p)} (${p.id})`;

/** The OpenID Connect clients whose sign-ins an end signed out, as a command's answer ends with them. */
export const signedOutOf = (apps: string[]): string =>
  apps.length === 0 ? "" : `; signed out of the app${apps.length === 1 ? "" : "s"} ${apps.join(", ")}`;

export const TOLD =
  "Each app with a back-channel logout address is sent a logout token by the mail task (`clients show` says whether it has one).";
