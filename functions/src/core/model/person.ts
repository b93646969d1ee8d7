/**
 * A person, as the service knows them: the domain's own record, which the store maps its
 * documents to (store/people) and everything above it works with. No I/O here.
 */

export type PersonStatus = "pending" | "approved" | "rejected";

/** The longest name a person may be given, in characters (core/people/acting `personName`; the account page). */
export const NAME_MAX = 200;
export type Role = "user" | "admin";

/**
 * What a person proved when they first came, for the reviewer who decides on them: an address
 * (a request for access), or an account at a provider (a bridge sign-up, or a sign-in at the
 * identity provider nobody recognised). Null for a person an
 * administrator added.
 */
export type Origin =
  | { via: "email"; address: string }
  | {
      via: "account";
      /** The bridge it came through (`gaming`, `federated`); null for a sign-in at the identity provider itself. */
      bridge: string | null;
      /** The provider that holds the account (`gaming`, `google.com`, `oidc.codehost`, `phone`). */
      provider: string;
      /** The account at the provider, as the provider names it; "" when it named none. */
      account: string;
      /** The name the provider gave; "" when none. */
      displayName: string;
      /**
       * The address the provider said is the account's, when the operator does not take that
       * provider's word for an address (ARRIVAL_PROVIDERS, core/arrival/arrival `proofOf`): a claim
       * for the reviewer to weigh, never held (not in `emails`, no key in personKeys), so its owner
       * still arrives by a code or an invitation. Absent when the provider proved the address, or
       * gave none.
       */
      claimedAddress?: string;
    };

export interface Person {
  id: string;
  uids: string[];
  emails: string[];
  phones: string[];
  name: string;
  role: Role;
  projects: string[];
  groups: string[];
  status: PersonStatus;
  createdAt: Date;
  updatedAt: Date;
  origin: Origin | null;
  /** What they wrote to the reviewer when they asked for access (plain text, core/text); "" for nothing. */
  note: string;
  /** New and pending, and not yet named in a digest to the reviewers (core/notices/review-notices). */
  awaitingNotice?: boolean;
  /**
   * Waiting for review, what the operator's rule for their address's domain suggests they be given
   * (ADDRESS_RULES `suggest`, core/arrival/arrival); gone once they are reviewed.
   */
  suggestion?: Suggestion;
  /**
   * Sessions of this person ended early (by logout), each until it would have expired anyway.
   * Kept on the person so the read every session request already makes brings them along.
   */
  endedSessions?: Record<string, Date>;
  /**
   * The browsers this person has signed in from, each by the digest of its identifier cookie (the
   * identifier itself is never stored), with when it was learned: at most KNOWN_BROWSERS_KEPT,
   * newest kept (core/notices/security-mail). Kept on the person so POST /auth/verify, which
   * reads them already, decides "a browser not seen before" without another read.
   */
  knownBrowsers?: Record<string, Date>;
  /** Present, and false, only when the person turned off the notices of sign-ins from new browsers. */
  newBrowserNotices?: false;
  /**
   * The sequence number of the last event published about this person (core/events): each one
   * takes the next, in the transaction of its change, so an app drops an event older than one it has.
   */
  eventSeq?: number;
  /**
   * When this person's time to add a passkey after signing in another way began (the passkey
   * rule's enrolment, core/people/acting): when they were given their role (a promotion, an
   * invitation's role taken up on arrival or when admitted from waiting, the operator's first
   * administrator), or the operator's clearing of their passkeys. Absent: from when they were
   * created (the local stack's seed, a member).
   */
  enrolmentFrom?: Date;
  /**
   * ID tokens of sign-ins made before this (their `auth_time`, to the second) are refused, as a
   * bearer credential and at POST /auth/verify: set when an address is taken off the person and
   * when all their other sessions are ended. The identity provider's refresh tokens keep a
   * sign-in's `auth_time`, so no token they mint later passes either. Kept on the person so the
   * read the gate already makes decides it, offline.
   */
  tokensValidAfter?: Date;
}

export interface Suggestion {
  /** The rule's domain. */
  rule: string;
  projects: string[];
  groups: string[];
}

export type NewPerson = Omit<
  Person,
  | "id"
  | "createdAt"
  | "updatedAt"
  | "endedSessions"
  | "origin"
  | "note"
  | "knownBrowsers"
  | "newBrowserNotices"
  | "eventSeq"
  | "enrolmentFrom"
  | "tokensValidAfter"
> &
  Partial<Pick<Person, "eventSeq">> &
  Partial<Pick<Person, "origin" | "note" | "enrolmentFrom">>;
export type KeyKind = "uid" | "email" | "phone";

/** Whether a sign-in at `authTime` is older than the person's `tokensValidAfter`. */
export function signedInBefore(person: Pick<Person, "tokensValidAfter">, authTime: Date): boolean {
  return person.tokensValidAfter !== undefined && authTime.getTime() < person.tokensValidAfter.getTime();
}

/**
 * The `tokensValidAfter` a change made at `now` sets: to the second, as an ID token's `auth_time`
 * is, so a sign-in made in the same second as the change (the person's own, right after) stands.
 */
export function tokensValidFrom(now: Date): Date {
  return new Date(Math.floor(now.getTime() / 1000) * 1000);
}

/**
 * The order people are listed in, and the cursor of a page: when they were created, then their
 * id, as one string (ISO 8601 sorts as text). Unique, so a page that ends between two people made
 * in the same millisecond still goes on at the right one.
 */
export function listKeyOf(person: Pick<Person, "id" | "createdAt">): string {
  return `${person.createdAt.toISOString()}~${person.id}`;
}

/** How long a search term may be: a longer one is matched by its first this many characters. */
export const TERM_MAX = 40;
/** How many search terms one person is indexed under, at most. */
const TERMS_MAX = 400;

/** The words a person is found by: their name's words, and each address whole, its local part and its domain. */
export function searchWords(person: Pick<Person, "name" | "emails">): string[] {
  const words = person.name.toLowerCase().normalize("NFKC").split(/\s+/u);
  for (const email of person.emails) words.push(email, ...email.split("@"));
  return [...new Set(words.filter((w) => w !== ""))];
}

/**
 * Every prefix of every search word (up to TERM_MAX characters): a query's first word is looked
 * up with one array-contains, so "lov" finds Ada Lovelace and "ada@" finds ada@example.org.
 */
export function searchTerms(person: Pick<Person, "name" | "emails">): string[] {
  const terms = new Set<string>();
  for (const word of searchWords(person)) {
    const chars = [...word].slice(0, TERM_MAX);
    for (let n = 1; n <= chars.length; n++) terms.add(chars.slice(0, n).join(""));
  }
  return [...terms].slice(0, TERMS_MAX);
}
