/**
 * A person's accounts at the identity provider, on their account page: what signs in as them
 * beside the codes mailed to their addresses and their passkeys (a Google account, a bridge's, the
 * account made for an address at a code sign-in, a password), and unlinking one, which lets it go
 * for good: it no longer signs in as them, and it is deleted at the provider, so its password and
 * sessions go with it (core/people/accounts). Unlinking needs a sign-in within the step-up window,
 * and, where the passkey rule holds the person, a passkey's (core/people/acting `ensureOwnWaysIn`).
 */
import type { Deps } from "../deps";
import * as people from "../../store/people";
import { ensure } from "../errors";
import { translateFailure, type Failure } from "../failures";
import type { Person } from "../model/person";
import { ensureOwnWaysIn, recordedAs, toldAs, type Acting } from "../people/acting";
import { deleteLetGo, queueAccountDeletions } from "../people/accounts";
import { publishAndRecord } from "../people/person-events";
import { accountLabel, accountUnlinkedEvent, queueNotice, recipientOf } from "../notices/security-notices";

type Self = Extract<Acting, { self: Person }>;
type AccountsDeps = Pick<
  Deps,
  "store" | "identity" | "log" | "clock" | "random" | "transaction" | "mailQueue" | "personCache" | "config"
>;

/** One account, as the person sees it: what it is, and whether this browser signed in through it. */
export interface LinkedAccountView {
  id: string;
  label: string;
  createdAt: string | null;
  lastSignInAt: string | null;
  thisBrowser: boolean;
}

const UNREADABLE: Failure = {
  code: "service_unavailable",
  log: "reading a person's provider accounts failed",
  level: "warn",
};

/** GET /auth/account/accounts: the person's accounts as the provider holds them (one it no longer holds is left out). */
export async function ownAccounts(deps: AccountsDeps, by: Self, uid: string): Promise<LinkedAccountView[]> {
  const person = await people.findById(deps.store, by.self.id);
  ensure(person, "person_not_found");
  const described = await translateFailure(deps, UNREADABLE, () => deps.identity.describeAccounts(person.uids));
  return person.uids.flatMap((id) => {
    const account = described.find((a) => a.uid === id);
    return account === undefined
      ? []
      : [
          {
            id,
            label: accountLabel(account),
            createdAt: account.createdAt,
            lastSignInAt: account.lastSignInAt,
            thisBrowser: id === uid,
          },
        ];
  });
}

/**
 * DELETE /auth/account/accounts/:id: the account is let go, in one transaction with the person's
 * history, the apps' event (they know people by their accounts) and the person's notice, and then
 * deleted at the provider. Never their only way in: a person with no address keeps their last
 * account. Answers the person as they are now.
 */
export async function unlinkOwnAccount(deps: AccountsDeps, by: Self, uid: string): Promise<Person> {
  // Under the passkey rule, from a passkey sign-in only (asked again in the transaction).
  await ensureOwnWaysIn(deps, by);
  // Theirs first: the provider is asked only about an account of theirs (and so a well-formed one).
  const held = await people.findById(deps.store, by.self.id);
  ensure(held?.uids.includes(uid), "account_not_found");
  const described = await translateFailure(deps, UNREADABLE, () => deps.identity.describeAccounts([uid]));
  const label = described[0] === undefined ? "an account the provider no longer holds" : accountLabel(described[0]);
  const after = await deps.transaction(async (tx) => {
    const current = await people.findById(deps.store, by.self.id, tx);
    ensure(current, "person_not_found");
    ensure(current.uids.includes(uid), "account_not_found");
    await ensureOwnWaysIn(deps, by, tx, current);
    const uids = current.uids.filter((u) => u !== uid);
    // Codes go to an address; a person without one signs in only through an account.
    ensure(uids.length > 0 || current.emails.length > 0, "last_way_in");
    const next: Person = { ...current, uids, updatedAt: deps.clock.now() };
    const recorded = recordedAs(by);
    const written = publishAndRecord(deps, tx, current, next, recorded.by, recorded.via);
    people.replace(deps.store, tx, current, written);
    queueAccountDeletions(deps, tx, [uid]);
    const from = toldAs(by);
    if (from !== null && deps.config.notices.waysIn)
      queueNotice(deps, tx, recipientOf(current), accountUnlinkedEvent(label, from));
    return written;
  });
  deps.personCache.evict(after.id);
  await deleteLetGo(deps, [uid]);
  return after;
}
