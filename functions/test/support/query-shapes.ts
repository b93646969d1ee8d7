/**
 * Records the shape of every Firestore query a behaviour file makes on the service's collections
 * (store/collections.ts): its collection, its filters' fields and operators, its orders. Taken at
 * the client library's one place that turns a query into what it sends, and written to
 * .stack/query-shapes/ when the file ends. Jest's global teardown
 * (check-indexes.cjs) then finds the composite index each needs in firestore.indexes.json, which
 * the emulators do not enforce.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { Query } from "@google-cloud/firestore";
import type { QueryShape } from "./indexes.cjs";
import { COLLECTIONS } from "../../src/store/collections";

export const SHAPES_DIR = join(__dirname, "..", "..", "..", ".stack", "query-shapes");

interface Internals {
  _queryOptions: {
    collectionId: string;
    filters: Array<{ field?: { formattedName: string }; op?: string }>;
    fieldOrders: Array<{ field: { formattedName: string }; direction: "ASCENDING" | "DESCENDING" }>;
  };
}

const seen = new Map<string, QueryShape>();
const proto = Query.prototype as unknown as { toStructuredQuery: (...args: unknown[]) => unknown };
const original = proto.toStructuredQuery;
proto.toStructuredQuery = function record(this: Internals, ...args: unknown[]) {
  const options = this._queryOptions;
  // The service's collections only: a test's own (the store contract's) is not deployed.
  if (!(options.collectionId in COLLECTIONS)) return original.apply(this, args);
  const shape: QueryShape = {
    collection: options.collectionId,
    // A composite (or/and) filter of filters has no field of its own: none is made here.
    filters: options.filters
      .filter((f) => f.field !== undefined && f.op !== undefined)
      .map((f) => ({ field: f.field!.formattedName, op: f.op! })),
    orders: options.fieldOrders.map((o) => ({ field: o.field.formattedName, direction: o.direction })),
  };
  seen.set(JSON.stringify(shape), shape);
  return original.apply(this, args);
};

afterAll(() => {
  if (seen.size === 0) return;
  mkdirSync(SHAPES_DIR, { recursive: true });
  const file = createHash("sha256")
    .update(expect.getState().testPath ?? "unknown")
    .digest("hex")
    .slice(0, 16);
  writeFileSync(join(SHAPES_DIR, `${file}.json`), JSON.stringify([...seen.values()]));
});
