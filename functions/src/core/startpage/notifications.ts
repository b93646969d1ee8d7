import type { Deps } from "../deps";
import { ensure } from "../errors";
import * as notifications from "../../store/notifications";

/** How many ids of read notices a person's read state keeps; older ones fall under `allReadAt`. */
const READ_IDS_KEPT = 500;

export interface NewNotification {
  title: string;
  body: string;
  link: string | null;
  level: notifications.Level;
  /** Person ids, or null for everyone. */
  personIds: string[] | null;
}

/** Ids sort by creation time: 13 digits of milliseconds, then randomness for uniqueness. */
function notificationId(deps: Pick<Deps, "clock" | "random">): string {
  return `${deps.clock.now().getTime().toString().padStart(13, "0")}-${deps.random.token(9)}`;
}

export async function notify(deps: Pick<Deps, "store" | "clock" | "random">, input: NewNotification): Promise<string> {
  const id = notificationId(deps);
  await notifications.create(deps.store, {
    id,
    title: input.title,
    body: input.body,
    link: input.link,
    level: input.level,
    audience: input.personIds ?? [notifications.EVERYONE],
    createdAt: deps.clock.now(),
  });
  return id;
}

export interface NotificationPage {
  notifications: Array<
    Omit<notifications.Notification, "audience" | "createdAt"> & { createdAt: string; read: boolean }
  >;
  next: string | null;
}

export async function notificationsFor(
  deps: Pick<Deps, "store">,
  personId: string,
  limit: number,
  before: string | null,
): Promise<NotificationPage> {
  // One more than asked tells whether another page exists without a second query.
  const [found, state] = await Promise.all([
    notifications.listFor(deps.store, personId, limit + 1, before),
    notifications.readState(deps.store, personId),
  ]);
  const page = found.slice(0, limit);
  const readIds = new Set(state.readIds);
  return {
    notifications: page.map(({ audience: _audience, createdAt, ...n }) => ({
      ...n,
      createdAt: createdAt.toISOString(),
      read: readIds.has(n.id) || (state.allReadAt !== null && createdAt.getTime() <= state.allReadAt.getTime()),
    })),
    next: found.length > limit ? (page[page.length - 1]?.id ?? null) : null,
  };
}

/** Marks notices read, or everything up to now; read-modify-write in one transaction. */
export async function markRead(
  deps: Pick<Deps, "store" | "clock" | "transaction">,
  personId: string,
  change: { ids: string[] } | { all: true },
): Promise<void> {
  await deps.transaction(async (tx) => {
    const state = await notifications.readState(deps.store, personId, tx);
    const next =
      "all" in change
        ? { readIds: [], allReadAt: deps.clock.now() }
        : {
            readIds: [...new Set([...state.readIds, ...change.ids])].slice(-READ_IDS_KEPT),
            allReadAt: state.allReadAt,
          };
    notifications.saveReadState(deps.store, tx, personId, next);
  });
}

/** Whether the notice is one the person is shown: for everyone, or for them by name. */
const shownTo = (n: notifications.Notification, personId: string): boolean =>
  n.audience.includes(notifications.EVERYONE) || n.audience.includes(personId);

/**
 * Marks one notice the person is shown as read. Another's notice, or none at all, is
 * `notification_not_found` alike: a caller learns nothing of notices not shown to them, and their
 * read state is left as it was.
 */
export async function markOneRead(
  deps: Pick<Deps, "store" | "clock" | "transaction">,
  personId: string,
  id: string,
): Promise<void> {
  // A document id is at most one path segment: a slash would name another collection's document.
  const found = id.includes("/") ? null : await notifications.find(deps.store, id);
  ensure(found !== null && shownTo(found, personId), "notification_not_found");
  await markRead(deps, personId, { ids: [id] });
}
