/**
 * The doctor's look at the erasures not finished (`erasures/{personId}`): a pure decision, so its
 * unit test can try every case. Each is retried by itself until it is done
 * (core/people/erasure-job); one still unfinished is a warning, with how long it has been; one
 * older than a day, past what the docs promise, fails: the identity provider keeps refusing to
 * delete the person's accounts, and it is the operator's to look at.
 */
import { DAY, HOUR, MINUTE, SECOND } from "../../clock";
import type { UnfinishedErasure } from "../../store/personal-data";
import { ERASURE_OVERDUE_MS } from "../../core/people/erasure-job";
import type { Check } from "../probes";

/** An erasure is usually finished within a day (docs/privacy.md): past that, the doctor fails. */
export { ERASURE_OVERDUE_MS };

/** A span as an operator reads it: `40 s`, `12 min`, `3 h 5 min`, `12 d 4 h`. */
export function spanText(ms: number): string {
  const whole = (unit: number, of = Infinity) => Math.floor((ms % of) / unit);
  if (ms < MINUTE) return `${Math.max(0, whole(SECOND))} s`;
  if (ms < HOUR) return `${whole(MINUTE)} min`;
  if (ms < DAY) return `${whole(HOUR)} h ${whole(MINUTE, HOUR)} min`;
  return `${whole(DAY)} d ${whole(HOUR, DAY)} h`;
}

export function checkErasures(unfinished: UnfinishedErasure[], now: Date): Check {
  const name = "erasures";
  if (unfinished.length === 0) return { name, ok: true, detail: "every erasure is finished", required: false };
  const age = (e: UnfinishedErasure) => now.getTime() - e.startedAt.getTime();
  const oldest = unfinished.reduce((a, b) => (age(b) > age(a) ? b : a));
  const overdue = unfinished.filter((e) => age(e) >= ERASURE_OVERDUE_MS).length;
  const accounts = unfinished.reduce((n, e) => n + e.uids.length, 0);
  const tried =
    oldest.lastTriedAt === null
      ? "not tried again yet"
      : `last tried ${spanText(now.getTime() - oldest.lastTriedAt.getTime())} ago`;
  const what =
    `${unfinished.length} unfinished, ${accounts} provider account(s) left; the oldest begun ` +
    `${spanText(age(oldest))} ago (${oldest.personId}, ${tried})`;
  if (overdue === 0)
    return { name, ok: false, detail: `${what}; each is retried by itself until done`, required: false };
  return {
    name,
    ok: false,
    detail:
      `${what}; ${overdue} older than a day: the identity provider keeps refusing to delete their accounts ` +
      "(`people erasures` lists them, `people erase <id>` tries one now; or delete the accounts in the Firebase console)",
    required: true,
  };
}
