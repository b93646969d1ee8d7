/**
 * Every query the reviewers' list and queue can make of `people` (store/people-list listPage) has its
 * composite index in firestore.indexes.json: Firestore refuses a query without one in production,
 * and no local emulator does. The filters a query applies come from the store's own listClauses.
 * Then the reindex that writes what those queries read, for people stored before it was kept.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { listClauses, reindex, type ListOrder, type PeopleFilter } from "../../src/store/people-list";
import { listKeyOf, searchTerms } from "../../src/core/model/person";
import { freshProject } from "../support/operator-cli";

interface IndexField {
  fieldPath: string;
  order?: "ASCENDING" | "DESCENDING";
  arrayConfig?: "CONTAINS";
}

const indexes = (
  JSON.parse(readFileSync(join(__dirname, "..", "..", "..", "firestore.indexes.json"), "utf8")) as {
    indexes: Array<{ collectionGroup: string; fields: IndexField[] }>;
  }
).indexes.filter((i) => i.collectionGroup === "people");

/** What one query needs: its filters in order, then the list key in the query's direction. */
function needed(filter: PeopleFilter, order: ListOrder): IndexField[] | null {
  const fields: IndexField[] = listClauses(filter).map((c) =>
    c.op === "array-contains"
      ? { fieldPath: c.field, arrayConfig: "CONTAINS" }
      : { fieldPath: c.field, order: "ASCENDING" },
  );
  // By an address: at most one person, no order (listPage), answered by merging single-field indexes.
  if (filter.email !== undefined) return null;
  // Ordered by the list key alone: its single-field index.
  if (fields.length === 0) return null;
  return [...fields, { fieldPath: "listKey", order: order === "oldest" ? "ASCENDING" : "DESCENDING" }];
}

const options = <T>(value: T) => [undefined, value];

describe("the people list's queries", () => {
  const shapes: Array<{ filter: PeopleFilter; order: ListOrder }> = [];
  for (const status of options("pending" as const))
    for (const role of options("admin" as const))
      for (const term of options("ada"))
        for (const project of options("calendar"))
          for (const email of options("ada@example.test"))
            for (const order of ["oldest", "newest"] as const)
              shapes.push({ filter: { status, role, term, project, email }, order });

  const indexed = shapes.flatMap((s) => {
    const fields = needed(s.filter, s.order);
    return fields === null ? [] : [[JSON.stringify(s), fields] as const];
  });

  it.each(indexed)("has an index for %s", (_name, fields) => {
    expect(indexes.map((i) => i.fields)).toContainEqual(fields);
  });

  it("needs no composite index only by an address, or with no filter at all", () => {
    expect(shapes.length - indexed.length).toBe(shapes.filter((s) => s.filter.email !== undefined).length + 2);
  });

  it("asks Firestore for one array-contains at most, an address before a search before a project", () => {
    const both = listClauses({ term: "ada", project: "calendar", email: "a@b.test" });
    expect(both.filter((c) => c.op === "array-contains")).toEqual([
      { field: "emails", op: "array-contains", value: "a@b.test" },
    ]);
    expect(listClauses({ term: "ada", project: "calendar" })[0]).toMatchObject({ field: "searchTerms" });
  });
});

describe("reindexing people (store/people-list reindex)", () => {
  it("writes the list key and search terms of the people stored without them, or with them out of date, and only theirs", async () => {
    const { db } = freshProject();
    const createdAt = new Date("2026-01-02T03:04:05.000Z");
    const stored = { uids: [], emails: ["ada@example.test"], phones: [], name: "Ada", role: "user", status: "pending" };
    const people = db.collection("people");
    await people.doc("older").set({ ...stored, projects: [], groups: [], createdAt, updatedAt: createdAt });
    await people.doc("renamed").set({
      ...stored,
      projects: [],
      groups: [],
      createdAt,
      updatedAt: createdAt,
      listKey: listKeyOf({ id: "renamed", createdAt }),
      searchTerms: searchTerms({ name: "Grace", emails: stored.emails }),
    });
    const current = {
      ...stored,
      projects: [],
      groups: [],
      createdAt,
      updatedAt: createdAt,
      listKey: listKeyOf({ id: "current", createdAt }),
      searchTerms: searchTerms(stored),
    };
    await people.doc("current").set(current);

    expect(await reindex(db)).toBe(2);
    for (const id of ["older", "renamed"])
      expect((await people.doc(id).get()).data()).toMatchObject({
        listKey: listKeyOf({ id, createdAt }),
        searchTerms: searchTerms(stored),
      });
    expect(searchTerms(stored)).toContain("ad");
    expect(await reindex(db)).toBe(0);
    expect((await people.doc("current").get()).get("searchTerms")).toEqual(current.searchTerms);
  });
});
