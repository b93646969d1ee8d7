/**
 * Filters more than one level deep: an OR of ANDs, as firebase-admin sends
 * `Filter.or(Filter.and(…), …)`. The library evaluates a composite filter of field filters only,
 * and matches nothing with a composite inside one. Here each branch a level deep is run through the library
 * as a query of its own, the branches are joined (OR) or met (AND) by document, and the query's
 * own order and limit are applied to what is kept, as Firestore does.
 */
import { FirestoreState } from "@firestore-emulator/server";
import {
  type StructuredQuery,
  StructuredQueryCompositeFilterOperator,
  type StructuredQueryFilter,
} from "@firestore-emulator/proto/dist/google/firestore/v1/query.js";

type Doc = { name: string };
type Run = (this: FirestoreState, parent: string, query: StructuredQuery) => Doc[];

/** Whether the library evaluates `filter` itself: a field filter, or a composite of field filters. */
const oneLevel = (filter: StructuredQueryFilter): boolean =>
  !filter.has_composite_filter || filter.composite_filter.filters.every((f) => f.has_field_filter);

const PATCHED = Symbol("nested filters");

export function queryNestedFilters(): void {
  const prototype = FirestoreState.prototype as unknown as { v1Query: Run & { [PATCHED]?: true } };
  if (prototype.v1Query[PATCHED]) return;
  const run = prototype.v1Query;
  prototype.v1Query = function v1Query(this: FirestoreState, parent: string, query: StructuredQuery): Doc[] {
    if (!query.has_where || oneLevel(query.where)) return run.call(this, parent, query);
    // The same query with another filter (or none) and no limit: only the fields the library's
    // v1Query reads, so nothing of the message is rebuilt (its oneofs do not survive toObject).
    const narrowed = (where: StructuredQueryFilter | null) =>
      ({
        from: query.from,
        order_by: query.order_by,
        has_where: where !== null,
        where,
        has_limit: false,
      }) as unknown as StructuredQuery;
    const held = (filter: StructuredQueryFilter): Set<string> => {
      if (oneLevel(filter)) return new Set(run.call(this, parent, narrowed(filter)).map((d) => d.name));
      const parts = filter.composite_filter.filters.map(held);
      const [first, ...others] = parts;
      if (first === undefined) return new Set();
      if (filter.composite_filter.op === StructuredQueryCompositeFilterOperator.OR)
        return new Set(parts.flatMap((part) => [...part]));
      return new Set([...first].filter((name) => others.every((part) => part.has(name))));
    };
    const kept = held(query.where);
    const ordered = run.call(this, parent, narrowed(null)).filter((d) => kept.has(d.name));
    return query.has_limit ? ordered.slice(0, query.limit.value) : ordered;
  };
  prototype.v1Query[PATCHED] = true;
}
