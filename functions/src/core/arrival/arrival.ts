/**
 * A stranger's first proven sign-in makes them a person, here alone: by a code at the sign-in page,
 * an access request, or a provider or bridge sign-in nobody recognised. An address invited before
 * (core/invitations) arrives approved with the invitation's grants and never waits for
 * review; so does one at a domain the operator's rule approves (ADDRESS_RULES); anyone else waits,
 * pending, for a reviewer, with the rule's suggestion where it makes one. Read and written in the caller's transaction,
 * which has found the address free: the invitation is taken up in the same commit that makes the
 * person, so it lets one person in, once.
 */
import type { Deps } from "../deps";
import type { Transaction } from "../../store/db";
import * as people from "../../store/people";
import * as invitations from "../../store/invitations";
import { isLive, type Invitation } from "../model/invitation";
import { inviterStands } from "../people/inviters";
import type { NewPerson, Person } from "../model/person";
import type { Actor, Via } from "../model/history";
import type { AddressRule } from "../settings";
import type { SignIn } from "../ports";
import { FIRST_SEQ, publishAndRecord, publishAndRecordArrival } from "../people/person-events";
import * as personKeys from "../../store/person-keys";
import { alreadyExists, translateFailure } from "../failures";
import { ensure } from "../errors";
import { queueAccountDeletions } from "../people/accounts";

type ArrivalDeps = Pick<Deps, "store" | "clock" | "random">;

/** What a new person's sign-in proved of them; their status and grants are decided here. */
export type Arriving = Pick<NewPerson, "uids" | "emails" | "phones" | "name" | "origin" | "note">;

/** The invitation that lets `address` in now, read in `tx` (or alone); null for none, or one expired. */
export async function liveInvitation(
  deps: Pick<Deps, "store" | "clock">,
  address: string | null,
  tx?: Transaction,
): Promise<Invitation | null> {
  if (address === null) return null;
  const invitation = await invitations.findByAddress(deps.store, address, tx);
  if (invitation === null || !isLive(invitation, deps.clock.now())) return null;
  // Made by an administrator who can no longer approve anyone: nothing stands of it.
  return (await inviterStands(deps, invitation, tx)) ? invitation : null;
}

/**
 * What decides a newcomer's standing: a live invitation of their address, else the operator's rule
 * for its domain (ADDRESS_RULES), else nothing (they wait for review).
 */
export type Arrival = { invitation: Invitation } | { rule: AddressRule } | null;

/** The rule for the domain of `address`, if the operator made one. */
export function ruleFor(deps: Pick<Deps, "config">, address: string | null): AddressRule | null {
  const domain = address?.split("@")[1];
  return deps.config.addressRules.find((r) => r.domain === domain) ?? null;
}

/**
 * What proved the newcomer's address: the service's own code (`code`), or a provider's sign-in
 * whose verified address the operator takes as proof (the identity provider's own, and
 * ARRIVAL_PROVIDERS: `trusted`) or does not (`unproven`).
 */
export type Proof = "code" | "trusted" | "unproven";

/**
 * Whether a provider's sign-in proves its verified address: the address's verified flag is the
 * account's, which any sign-in method linked to it may have set, so every one of them must be the
 * identity provider's own check (`password`) or a provider the operator names (ARRIVAL_PROVIDERS).
 */
export function proofOf(deps: Pick<Deps, "config">, signIn: Pick<SignIn, "provider" | "linked">): Proof {
  const methods = [signIn.provider, ...(signIn.linked ?? [])];
  const vouches = (m: string) => m === "password" || deps.config.arrivalProviders.includes(m);
  return methods.every(vouches) ? "trusted" : "unproven";
}

/**
 * What decides the newcomer with `address`, read in `tx` (or alone). An address a provider the
 * operator does not name vouches for lets nothing in: the newcomer waits (with a rule's
 * suggestion), claiming the address without holding it (core/arrival/resolve-person), and an
 * invitation stays for a code to the address to take up, as anyone's would. A `+tag` address
 * is the mailbox of the address without it, so a rule only suggests for it: a person turned
 * down cannot walk back in, with the rule's grants, as `name+1@`.
 */
export async function arrivalFor(
  deps: Pick<Deps, "store" | "clock" | "config">,
  address: string | null,
  tx?: Transaction,
  proof: Proof = "code",
): Promise<Arrival> {
  const invitation = proof === "unproven" ? null : await liveInvitation(deps, address, tx);
  if (invitation !== null) return { invitation };
  const rule = ruleFor(deps, address);
  if (rule === null) return null;
  const tagged = (address ?? "").split("@")[0]?.includes("+") === true;
  return { rule: proof === "unproven" || tagged ? { ...rule, then: "suggest" } : rule };
}

/** Whether it lets the newcomer in at once (an invitation, or a rule that approves), so a sign-in code may make them. */
export const letsIn = (arrival: Arrival): boolean =>
  arrival !== null && ("invitation" in arrival || arrival.rule.then === "approve");

/** The standing a newcomer arrives with, who is recorded as letting them in, and how. */
function standing(arrival: Arrival, name: string, via: Via) {
  const waits = { role: "user" as const, status: "pending" as const, awaitingNotice: true };
  if (arrival === null)
    return { fields: { ...waits, projects: [], groups: [] }, by: { kind: "person" } as Actor, via, rule: null };
  if ("invitation" in arrival) {
    const { invitation } = arrival;
    return {
      fields: {
        // The name the inviter gave, unless the sign-in brought one and the inviter gave none.
        name: invitation.name === "" ? name : invitation.name,
        role: invitation.role,
        projects: invitation.projects,
        groups: invitation.groups,
        status: "approved" as const,
      },
      by: invitation.invitedBy,
      via: "invitation" as const,
      rule: null,
    };
  }
  const { rule } = arrival;
  if (rule.then === "approve")
    return {
      fields: { role: "user" as const, projects: rule.projects, groups: rule.groups, status: "approved" as const },
      by: { kind: "service" } as Actor,
      via: "rule" as const,
      rule: rule.domain,
    };
  const suggestion = { rule: rule.domain, projects: rule.projects, groups: rule.groups };
  return {
    fields: { ...waits, projects: [], groups: [], suggestion },
    by: { kind: "person" } as Actor,
    via,
    rule: rule.domain,
  };
}

/**
 * Makes the person, in `tx`, after every read the transaction makes (`arrival` among them, as
 * arrivalFor read it): approved with the grants of a live invitation, which is taken up, or of the
 * rule for their address's domain; or pending, marked for the reviewers' digest (with the rule's
 * suggestion, where it suggests). Their history's first entry names who or what let them in.
 */
export function arrive(
  deps: ArrivalDeps,
  tx: Transaction,
  arriving: Arriving,
  via: Exclude<Via, "invitation" | "rule">,
  arrival: Arrival,
): Person {
  const decided = standing(arrival, arriving.name, via);
  const now = deps.clock.now();
  // Arriving in an administrator's role (an invitation's): their enrolment, the days in which an
  // email code may add a first passkey, starts now (core/people/acting).
  const enrolment = decided.fields.role === "user" ? {} : { enrolmentFrom: now };
  const fields: NewPerson = { ...arriving, eventSeq: FIRST_SEQ, ...decided.fields, ...enrolment };
  const person = people.create(deps.store, tx, fields, deps.random.id(), now);
  // The rule of the address's domain that let them in, or made its suggestion, is in their history.
  publishAndRecordArrival(deps, tx, person, decided, decided.rule);
  if (arrival !== null && "invitation" in arrival) invitations.remove(deps.store, tx, arrival.invitation.id);
  return person;
}

/**
 * A person waiting with `address`, who has just proved it by code, where an invitation or an
 * approving rule lets that address in (they asked for access before the operator's rule was
 * made, or came through a provider before its word on an address was kept as a claim only):
 * approved now, in one transaction, with its grants, the invitation taken up, their
 * history naming who let them in. Only the code proved anything: the accounts they came with are
 * let go (and deleted), and the number and note that came with them dropped, so nothing another
 * provider vouched for (a phone that signs in by itself) inherits the invitation's grants. Null
 * when nothing lets them in any more: they wait on.
 */
export async function admitWaiting(
  deps: ArrivalDeps & Pick<Deps, "transaction" | "mailQueue" | "log" | "config" | "identity">,
  personId: string,
  address: string,
): Promise<Person | null> {
  let letGo: string[] = [];
  const admitted = await deps.transaction(async (tx) => {
    const current = await people.findById(deps.store, personId, tx);
    if (current === null || current.status !== "pending" || !current.emails.includes(address)) return null;
    const arrival = await arrivalFor(deps, address, tx);
    if (!letsIn(arrival)) return null;
    const decided = standing(arrival, current.name, "sign-in");
    const now = deps.clock.now();
    const next: Person = {
      ...current,
      ...decided.fields,
      uids: [],
      phones: [],
      note: "",
      updatedAt: now,
      // Given a role by the invitation: the enrolment starts at the admission, not when they
      // first came to wait (an invitation can outlive the 7 days by months).
      ...(decided.fields.role === current.role ? {} : { enrolmentFrom: now }),
    };
    delete next.awaitingNotice;
    delete next.suggestion;
    const written = publishAndRecord(deps, tx, current, next, decided.by, decided.via);
    people.replace(deps.store, tx, current, written);
    if (arrival !== null && "invitation" in arrival) invitations.remove(deps.store, tx, arrival.invitation.id);
    queueAccountDeletions(deps, tx, current.uids);
    letGo = current.uids;
    return written;
  });
  if (admitted === null) return null;
  // Gone before the sign-in goes on: the provider's account for the address is made afresh, and
  // is not the one the other provider vouched for. The queued deletions retry what fails here.
  const failed = await translateFailure(
    deps,
    { code: "signin_failed", log: "sign-in: letting accounts go failed" },
    () => deps.identity.deleteAccounts(letGo),
  );
  ensure(failed.length === 0, "signin_failed");
  return admitted;
}

/**
 * A correct sign-in code for an address no person holds, which an invitation or an approving rule
 * let in when the code was sent: the person is made now (one transaction; of two at once, one
 * makes them and the other finds them). Null when the invitation has since expired or been
 * revoked, or the rule is gone: a stranger then.
 */
export async function arriveByCode(
  deps: ArrivalDeps & Pick<Deps, "transaction" | "mailQueue" | "log" | "config">,
  address: string,
): Promise<Person | null> {
  for (let attempt = 0; ; attempt++) {
    try {
      const person = await deps.transaction(async (tx) => {
        const holderId = await personKeys.keyHolder(deps.store, tx, "email", address);
        if (holderId !== null) return people.findById(deps.store, holderId, tx);
        const arrival = await arrivalFor(deps, address, tx);
        if (!letsIn(arrival)) return null;
        const arriving: Arriving = {
          uids: [],
          emails: [address],
          phones: [],
          name: "",
          origin: { via: "email", address },
          note: "",
        };
        return arrive(deps, tx, arriving, "sign-in", arrival);
      });
      return person;
    } catch (err) {
      // The loser of a race for the same address finds the winner's person on the next pass.
      if (attempt === 0 && alreadyExists(err)) continue;
      throw err;
    }
  }
}
