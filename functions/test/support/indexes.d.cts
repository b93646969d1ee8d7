export interface QueryShape {
  collection: string;
  filters: Array<{ field: string; op: string }>;
  orders: Array<{ field: string; direction: "ASCENDING" | "DESCENDING" }>;
}

export interface IndexField {
  fieldPath: string;
  order?: "ASCENDING" | "DESCENDING";
  arrayConfig?: "CONTAINS";
}

export interface CompositeIndex {
  collectionGroup: string;
  queryScope?: string;
  fields: IndexField[];
}

/** The index a query needs, as the fields it must hold; null when the automatic ones serve it. */
export function requiredIndex(query: QueryShape): { equal: IndexField[]; sorted: IndexField[] } | null;
/** The queries among `shapes` that need a composite index `indexes` does not have. */
export function missingIndexes(shapes: QueryShape[], indexes: CompositeIndex[]): QueryShape[];
/** A shape as one line: what a report of a missing index names. */
export function describeShape(shape: QueryShape): string;
