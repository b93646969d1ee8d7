/**
 * The audit trail, as the domain tells it: one record per privileged act (an administrator's or
 * reviewer's through the API, an operator's on the command line), and per privileged act refused.
 * Records name people by id alone and hold no secret: what changed is named by field, with the
 * values only of the fields that say what someone may do (status, role, projects, groups). No I/O.
 */

/** Who acted: an administrator through the API (how their session began), an operator, or a person refused. */
export type AuditActor =
  | { kind: "admin"; personId: string; amr: string[]; lifted: boolean }
  | { kind: "operator"; name: string }
  | { kind: "person"; personId: string };

/** What the act was about, for filtering: `person`, `client`, `invitation`, `operator` (a command), `refusal`. */
export const AUDIT_KINDS = ["person", "client", "invitation", "operator", "refusal"] as const;
export type AuditKind = (typeof AUDIT_KINDS)[number];

export interface AuditRecord {
  id: string;
  at: Date;
  actor: AuditActor;
  /** The actor as one string, to filter by: `admin:<personId>`, `operator:<login@machine>`, `person:<personId>`. */
  actorId: string;
  kind: AuditKind;
  /** What was done: `person.changed`, `client.approved`, `cli.people.approve`, `refused.admin-route`… */
  action: string;
  /** The ids acted on: people, clients, hooks, resources, as the act names them. */
  subjects: string[];
  /** The act's particulars, none secret and none a person's own data (an address, a name). */
  detail: Record<string, string | string[]>;
  outcome: "done" | "refused";
  /** Where the act came from: the API (and the browser, where named) or the command line (and its target). */
  client: { via: "api" | "cli"; from: string | null };
  /** The request's trace (trace.ts), where the act had one. */
  traceId: string | null;
  /** When the trail lets it go (a TTL policy): AUDIT_KEPT_MS after `at`. */
  forgetAfter: Date;
}

/** How long the trail keeps a record: 400 days, past a year's audit period and its report. */
export const AUDIT_KEPT_MS = 400 * 24 * 3600 * 1000;

/** The fields of a person whose values the trail keeps: what they may do, nothing of who they are. */
export const ACCESS_FIELDS = ["status", "role", "projects", "groups"] as const;

export function actorIdOf(actor: AuditActor): string {
  return actor.kind === "operator" ? `operator:${actor.name}` : `${actor.kind}:${actor.personId}`;
}

/** The instants Firestore holds, and so the only ones the trail can be asked about: 0001-01-01 to 9999-12-31, UTC. */
const FIRST_INSTANT = Date.parse("0001-01-01T00:00:00.000Z");
const LAST_INSTANT = Date.parse("9999-12-31T23:59:59.999Z");

export function storableInstant(at: Date): boolean {
  const ms = at.getTime();
  return ms >= FIRST_INSTANT && ms <= LAST_INSTANT;
}
