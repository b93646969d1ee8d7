import type { Collection } from "./collections";
import type { Query } from "firebase-admin/firestore";
import { stringList, type Firestore } from "./db";
import { fromDoc } from "./people";
import { listKeyOf, searchTerms, type Person, type PersonStatus, type Role } from "../core/model/person";

/**
 * `people/{personId}`, read as lists: pages of people by address, search term, project, status
 * and role, how many have a status, and reindexing what lists and searches find people by
 * (listKey, searchTerms). Mapping the documents, finding one person and writing: store/people.ts.
 */
const PEOPLE: Collection = "people";

export interface PeopleFilter {
  status?: PersonStatus;
  role?: Role;
  /** An address, canonical: the people holding it. */
  email?: string;
  /** A granted project. */
  project?: string;
  /** A search term (see searchTerms): lowercase, at most TERM_MAX characters. */
  term?: string;
}

export type ListOrder = "oldest" | "newest";

/**
 * People matching `filter`, in list order (listKeyOf), from just after the list key `after`.
 * One array-contains at most (Firestore's rule): an address, else a search term, else a project;
 * the caller filters by the rest. Each combination has its composite index in
 * firestore.indexes.json (test/store/people-queries.test.ts holds the two together).
 */
export async function listPage(
  db: Firestore,
  filter: PeopleFilter,
  order: ListOrder,
  limit: number,
  after: string | null,
): Promise<Person[]> {
  let query: Query = db.collection(PEOPLE);
  for (const clause of listClauses(filter)) query = query.where(clause.field, clause.op, clause.value);
  // An address names one person at most: no order, and no index beyond the one for `emails`.
  if (filter.email === undefined) {
    // A range on the ordering field, not a cursor: the same page wherever the query runs.
    if (after !== null) query = query.where("listKey", order === "oldest" ? ">" : "<", after);
    query = query.orderBy("listKey", order === "oldest" ? "asc" : "desc");
  }
  const snap = await query.limit(limit).get();
  return snap.docs.map((d) => fromDoc(d.id, d.data()));
}

interface Clause {
  field: string;
  op: "array-contains" | "==";
  value: string;
}

/** The filters of a list query, in the order its composite index names them. */
export function listClauses(filter: PeopleFilter): Clause[] {
  const clauses: Clause[] = [];
  if (filter.email !== undefined) clauses.push({ field: "emails", op: "array-contains", value: filter.email });
  else if (filter.term !== undefined) clauses.push({ field: "searchTerms", op: "array-contains", value: filter.term });
  else if (filter.project !== undefined)
    clauses.push({ field: "projects", op: "array-contains", value: filter.project });
  if (filter.status !== undefined) clauses.push({ field: "status", op: "==", value: filter.status });
  if (filter.role !== undefined) clauses.push({ field: "role", op: "==", value: filter.role });
  return clauses;
}

/** How many people have `status`: one aggregation read (per 1,000 counted). */
export async function countByStatus(db: Firestore, status: PersonStatus): Promise<number> {
  return (await db.collection(PEOPLE).where("status", "==", status).count().get()).data().count;
}

/**
 * Writes what lists and searches find people by (listKey, searchTerms) wherever it is missing or
 * out of date: people stored before the service kept them. Reads every person once; idempotent.
 */
export async function reindex(db: Firestore): Promise<number> {
  const snap = await db.collection(PEOPLE).get();
  const stale = snap.docs.flatMap((d) => {
    const person = fromDoc(d.id, d.data());
    const wanted = { listKey: listKeyOf(person), searchTerms: searchTerms(person) };
    const terms = stringList(d.get("searchTerms"));
    const current = d.get("listKey") === wanted.listKey && terms.join("\n") === wanted.searchTerms.join("\n");
    return current ? [] : [{ ref: d.ref, wanted }];
  });
  for (let i = 0; i < stale.length; i += 400) {
    const batch = db.batch();
    for (const { ref, wanted } of stale.slice(i, i + 400)) batch.update(ref, wanted);
    await batch.commit();
  }
  return stale.length;
}
