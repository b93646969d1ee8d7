/**
 * Finding people: one by id, pages of them by status, role, project, address and search words
 * (the administrators' list and search, the CLI's `people list`), and the review queue.
 */
import type { Deps } from "../deps";
import * as people from "../../store/people";
import * as peopleList from "../../store/people-list";
import { ensure } from "../errors";
import { TERM_MAX, listKeyOf, searchWords, type Person, type PersonStatus, type Role } from "../model/person";

/** Writes what lists and searches find people by where it is missing (people stored by an older version). */
export function reindexPeople(deps: Pick<Deps, "store">): Promise<number> {
  return peopleList.reindex(deps.store);
}

/** GET /auth/people/:personId. */
export async function findPerson(deps: Pick<Deps, "store">, personId: string): Promise<Person> {
  const person = await people.findById(deps.store, personId);
  ensure(person, "person_not_found");
  return person;
}

/** A page of a list: the people on it, and the cursor of the next page (null: this is the last). */
export interface PeoplePage {
  people: Person[];
  next: string | null;
}

export interface PeopleQuery {
  status?: PersonStatus;
  role?: Role;
  project?: string;
  /** An exact address (canonical). */
  email?: string;
  /** Words, each the start of a word of the name or of an address: "ada lov", "example.org". */
  search?: string;
  order: peopleList.ListOrder;
  limit: number;
  /** Where the previous page ended (PeoplePage.next); null for the first page. */
  after: string | null;
}

/** How many stored people one page may look through to fill itself when part of a query is filtered here. */
const SCAN_PAGES = 5;

/**
 * A page of people by status, role, project, address and search words. Firestore answers one
 * array-contains per query: the first search word's (searchTerms, core/model/person) is asked of it,
 * and the other words, and a project asked beside a search, are checked here, reading at most
 * SCAN_PAGES pages' worth; a page filled short of `limit` still says where to go on.
 */
export async function findPeople(deps: Pick<Deps, "store">, query: PeopleQuery): Promise<PeoplePage> {
  const words = (query.search ?? "").toLowerCase().normalize("NFKC").split(/\s+/u).filter(Boolean);
  const term = words[0] === undefined ? undefined : [...words[0]].slice(0, TERM_MAX).join("");
  const filter: peopleList.PeopleFilter = {
    status: query.status,
    role: query.role,
    email: query.email,
    term: query.email === undefined ? term : undefined,
    project: query.email === undefined && term === undefined ? query.project : undefined,
  };
  const matches = (p: Person) => {
    if (query.project !== undefined && !p.projects.includes(query.project)) return false;
    const own = searchWords(p);
    return words.every((w) => own.some((o) => o.startsWith(w)));
  };
  const found: Person[] = [];
  let after = query.after;
  for (let scanned = 0; scanned < SCAN_PAGES * (query.limit + 1);) {
    const batch = await peopleList.listPage(deps.store, filter, query.order, query.limit + 1, after);
    for (const p of batch) {
      after = listKeyOf(p);
      if (matches(p)) found.push(p);
      if (found.length > query.limit) {
        const shown = found.slice(0, query.limit);
        return { people: shown, next: listKeyOf(shown[shown.length - 1] as Person) };
      }
    }
    scanned += batch.length;
    if (batch.length <= query.limit) return { people: found, next: null };
  }
  // Looked through enough for one answer: what was found, and where to look on from.
  return { people: found, next: after };
}

/** The review queue: pending people, oldest first, a page at a time, with how many wait in all. */
export async function reviewQueue(
  deps: Pick<Deps, "store">,
  limit: number,
  after: string | null,
): Promise<PeoplePage & { waiting: number }> {
  const [page, waiting] = await Promise.all([
    findPeople(deps, { status: "pending", order: "oldest", limit, after }),
    peopleList.countByStatus(deps.store, "pending"),
  ]);
  return { ...page, waiting };
}
