import type { Deps } from "../deps";
import * as people from "../../store/people";
import { canonicalEmail } from "../email-address";
import { AppError, ensure } from "../errors";
import type { Actor } from "../model/history";
import { type Person } from "../model/person";
import * as personKeys from "../../store/person-keys";
import { passkeyRule, personName } from "./acting";
import * as sessions from "../../store/sessions";
import { endedWith, heldKeys, openedByKey, removeHeldKeys, takesRuledRole } from "./promotion-keys";
import { FIRST_SEQ, publishAndRecord, publishAndRecordArrival } from "./person-events";

/** A person named by id or by an address on them (the operator's `<who>`). */
export async function findPersonByIdOrEmail(deps: Pick<Deps, "store">, who: string): Promise<Person> {
  if (who.includes("@")) {
    const email = canonicalEmail(who);
    ensure(email, "person_not_found", `"${who}" is not an email address`);
    const person = await people.findByEmail(deps.store, email);
    ensure(person, "person_not_found", `no person has the address ${email}`);
    return person;
  }
  const person = await people.findById(deps.store, who);
  ensure(person, "person_not_found", `no person has the id ${who}`);
  return person;
}

/**
 * Makes the first admin: the person with `email` (created if nobody has it) becomes approved,
 * admin, with every project. Decided in one transaction that first looks for any admin; every
 * bootstrap also writes one lock document, so of two at once the second sees the first's admin
 * and is refused.
 */
export async function bootstrapAdmin(
  deps: Pick<Deps, "store" | "clock" | "random" | "transaction" | "mailQueue" | "log" | "config">,
  rawEmail: string,
  givenName: string,
  by: Actor,
): Promise<{ person: Person; created: boolean }> {
  const email = canonicalEmail(rawEmail);
  ensure(email, "email_invalid", `"${rawEmail}" is not an email address`);
  const name = personName(givenName);
  const made = await deps.transaction(async (tx) => {
    const writeLock = await personKeys.readBootstrapLock(deps.store, tx);
    // A first admin is asked for and the service already has one.
    if (await people.anyAdmin(deps.store, tx)) throw new AppError("admin_exists");
    const fields = { role: "admin" as const, projects: ["*"], status: "approved" as const };
    const holderId = await personKeys.keyHolder(deps.store, tx, "email", email);
    const holder = holderId === null ? null : await people.findById(deps.store, holderId, tx);
    const now = deps.clock.now();
    // Made an administrator where the passkey rule holds them: the keys they made as a member go,
    // with the sessions those keys opened, as at a promotion (core/people/promotion-keys).
    const promoted = holder !== null && takesRuledRole(await passkeyRule(deps, tx), holder, fields);
    const keys = promoted ? await heldKeys(deps, tx, holder.id) : null;
    const opened = promoted ? (await sessions.findLive(deps.store, holder.id, now, tx)).filter(openedByKey) : [];
    writeLock(now);
    if (holder) {
      // Their enrolment (a passkey, core/people/acting) starts now, as a promotion's does.
      const changed: Person = {
        ...holder,
        ...fields,
        name: holder.name || name,
        updatedAt: now,
        enrolmentFrom: now,
        ...(opened.length === 0 ? {} : { endedSessions: endedWith(holder, opened, now) }),
      };
      delete changed.awaitingNotice;
      const next = publishAndRecord(deps, tx, holder, changed, by, "cli");
      people.replace(deps.store, tx, holder, next);
      for (const s of opened) sessions.markEnded(deps.store, tx, s.sessionId, now);
      if (keys !== null) removeHeldKeys(deps, tx, holder.id, keys, { by, via: "cli" });
      return { person: next, created: false };
    }
    const person = people.create(
      deps.store,
      tx,
      { ...fields, name, uids: [], emails: [email], phones: [], groups: [], eventSeq: FIRST_SEQ },
      deps.random.id(),
      now,
    );
    publishAndRecordArrival(deps, tx, person, { by, via: "cli" });
    return { person, created: true };
  });
  return made;
}
