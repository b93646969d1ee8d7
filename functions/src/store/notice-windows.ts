import type { Collection } from "./collections";
import { optionalString, toDate, type Firestore, type Transaction } from "./db";

/**
 * `noticeWindows/{personId}`: the security notices a person was sent lately, by outbox entry, and
 * the summary the rest are waiting in (core/notices/security-mail). Written only by the mail
 * drainer, as it sends: no action that queues a notice reads or writes it. `forgetAfter` is when
 * it stops mattering (a TTL field).
 */
const WINDOWS: Collection = "noticeWindows";

export interface NoticeWindow {
  personId: string;
  /** When each notice lately sent took its place, by its outbox entry's id. */
  sent: Record<string, Date>;
  /** The outbox entry of the summary the notices past the limit are folded into; null when none waits. */
  summary: string | null;
}

function ref(db: Firestore, personId: string) {
  return db.collection(WINDOWS).doc(personId);
}

/** The person's window, read in `tx` (an empty one when there is none). */
export async function find(db: Firestore, tx: Transaction, personId: string): Promise<NoticeWindow> {
  const snap = await tx.get(ref(db, personId));
  const sent = snap.get("sent") as unknown;
  return {
    personId,
    sent:
      typeof sent === "object" && sent !== null
        ? Object.fromEntries(Object.entries(sent).map(([id, at]) => [id, toDate(at)]))
        : {},
    summary: optionalString(snap.get("summary")),
  };
}

export function save(db: Firestore, tx: Transaction, window: NoticeWindow, forgetAfter: Date): void {
  tx.set(ref(db, window.personId), { sent: window.sent, summary: window.summary, forgetAfter });
}
