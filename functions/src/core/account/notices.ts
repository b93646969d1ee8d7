/**
 * The person's own choice of notices, on their account page (GET/PATCH /auth/session/notices):
 * only those of sign-ins from new browsers can be turned off. The others tell of a way in or of
 * access changing, which a person who did not do it must hear of (core/notices/security-notices).
 */
import type { Deps } from "../deps";
import * as people from "../../store/people";
import { ensureOwnWaysIn, type SelfActing } from "../people/acting";
import { newBrowserNoticesOffEvent, queueNotice, recipientOf } from "../notices/security-notices";

/**
 * Which notices the person may choose, as they have chosen: only those of new browsers. Read from
 * the store, not the person cache: a choice just made on another instance shows at once.
 */
export async function noticeChoices(deps: Pick<Deps, "store">, personId: string): Promise<{ newBrowser: boolean }> {
  const person = await people.findById(deps.store, personId);
  return { newBrowser: person?.newBrowserNotices !== false };
}

/**
 * The person turns the notices of sign-ins from new browsers off or on. Off silences what would
 * tell of a stolen session, so it is a change to their ways in (core/people/acting
 * `ensureOwnWaysIn`): a recent sign-in, and where the passkey rule holds them a passkey's, asked
 * before and again in the transaction that turns them off; and the person is told, in that
 * transaction. This instance forgets its copy of the person at once.
 */
export async function chooseNewBrowserNotices(
  deps: Pick<Deps, "store" | "personCache" | "clock" | "random" | "transaction" | "mailQueue" | "log" | "config">,
  by: SelfActing & { from: string },
  on: boolean,
): Promise<void> {
  const personId = by.self.id;
  if (!on) await ensureOwnWaysIn(deps, by);
  await deps.transaction(async (tx) => {
    const person = await people.findById(deps.store, personId, tx);
    if (!person) return;
    const turnedOff = !on && person.newBrowserNotices !== false;
    if (turnedOff) await ensureOwnWaysIn(deps, by, tx, person);
    people.setNewBrowserNotices(deps.store, tx, personId, on);
    if (turnedOff && deps.config.notices.newBrowser)
      queueNotice(deps, tx, recipientOf(person), newBrowserNoticesOffEvent(by.from));
  });
  deps.personCache.evict(personId);
}
