/** Outbox entries as the drain leaves them, written by a test that needs their record and not their sending. */
import * as outbox from "../../src/store/outbox";
import type { OutboxEntry, OutboxState } from "../../src/core/model/outbox";
import type { Firestore } from "../../src/store/db";
import { unique } from "./deps";

/** An entry of `kind` (a code's mail, an app's delivery, a logout token), in `state`, queued at `at`. */
export async function queuedEntry(
  db: Firestore,
  entry: { kind: "code" | "delivery" | "backchannel-logout"; about?: string; state: OutboxState; at: Date },
): Promise<string> {
  const id = unique("entry");
  const done = entry.state === "sent";
  const common = {
    id,
    state: entry.state,
    attempts: entry.state === "failed" ? 12 : 1,
    nextAttemptAt: entry.at,
    claim: null,
    deliverBy: new Date(entry.at.getTime() + 86_400_000),
    createdAt: entry.at,
    sentAt: done ? entry.at : null,
    lastError: entry.state === "failed" ? "timeout" : null,
    forgetAfter: new Date(entry.at.getTime() + 8 * 86_400_000),
    trace: null,
  };
  const about = entry.about ?? unique("about");
  const full: OutboxEntry =
    entry.kind === "code"
      ? { ...common, kind: "code", lane: "mail", sealed: { kid: "k", iv: "", data: "", tag: "" } as never }
      : entry.kind === "delivery"
        ? {
            ...common,
            kind: "delivery",
            lane: "apps",
            about,
            event: { id: unique("evt"), type: "person.approved", personId: "p", at: entry.at } as never,
          }
        : { ...common, kind: "backchannel-logout", lane: "apps", about, logout: { sid: "s", sub: "p" } };
  await outbox.addAlone(db, full);
  return id;
}
