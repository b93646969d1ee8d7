/**
 * A person, and an entry of their history, as the people administration endpoints return them
 * (routes/people.ts): types of their own with nothing imported, so the identity host's reviewer
 * pages take them from here (as site/src/shared/api.ts takes PersonView) instead of keeping a copy.
 */
export interface AdminPersonView {
  personId: string;
  /** The first linked account at the identity provider; null when there is none. */
  uid: string | null;
  uids: string[];
  /** The first of the person's addresses; null when they have none. */
  email: string | null;
  emails: string[];
  phones: string[];
  name: string;
  role: "user" | "admin";
  projects: string[];
  groups: string[];
  status: "pending" | "approved" | "rejected";
  createdAt: string;
  updatedAt: string;
  /** What they proved when they came: an address, an account at a provider; null when an administrator added them. */
  origin:
    | { via: "email"; address: string }
    | { via: "account"; bridge: string | null; provider: string; account: string; displayName: string }
    | null;
  /** What they wrote to the reviewer: plain text, "" for none. */
  note: string;
}

export interface HistoryEntryView {
  at: string;
  by:
    | { kind: "admin"; personId: string; email: string | null }
    | { kind: "operator"; name: string }
    | { kind: "person" }
    | { kind: "service" };
  via: "api" | "cli" | "request-access" | "bridge" | "sign-in" | "seed" | "review" | "account";
  event:
    | "created"
    | "changed"
    | "sessions-ended"
    | "passkeys-removed"
    | "exported"
    | "erased"
    | "exported-someone"
    | "erased-someone";
  /** Each field the event changed: what it was, and what it became. */
  changes: Record<string, { from: string | string[] | null; to: string | string[] | null }>;
}
