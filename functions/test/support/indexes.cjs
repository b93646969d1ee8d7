/**
 * Which composite index a Firestore query needs, and whether firestore.indexes.json has it. The
 * emulators serve every query without one; production answers FAILED_PRECONDITION instead. The
 * rules, as Firestore applies them:
 *
 * - A query on one field (or on none but the document id) is served by the automatic single-field
 *   indexes; so is one of equality filters alone (`==`, `array-contains`), by merging them.
 * - Any other needs a composite index: the equality fields first (in any order; an
 *   `array-contains` field as CONTAINS), then the fields it sorts by, in order: an inequality's
 *   field (`<`, `<=`, `>`, `>=`, `!=`, `not-in`) first unless an explicit order names it, then the
 *   explicit orders. Their directions must be the index's, or all its reverse.
 *
 * Plain JavaScript, so jest's global teardown (check-indexes.cjs) loads it as it is; its types are
 * in indexes.d.cts.
 */
const EQUALITY = new Set(["EQUAL", "ARRAY_CONTAINS", "IN", "ARRAY_CONTAINS_ANY"]);
const DOCUMENT_ID = "__name__";

function requiredIndex(query) {
  const filters = query.filters.filter((f) => f.field !== DOCUMENT_ID);
  const orders = query.orders.filter((o) => o.field !== DOCUMENT_ID);
  const equal = filters
    .filter((f) => EQUALITY.has(f.op))
    .map((f) =>
      f.op.startsWith("ARRAY_CONTAINS") ? { fieldPath: f.field, arrayConfig: "CONTAINS" } : { fieldPath: f.field },
    );
  const unequal = [...new Set(filters.filter((f) => !EQUALITY.has(f.op)).map((f) => f.field))];
  const sorted = orders.map((o) => ({ fieldPath: o.field, order: o.direction }));
  for (const field of unequal.reverse())
    if (!sorted.some((s) => s.fieldPath === field)) sorted.unshift({ fieldPath: field, order: "ASCENDING" });
  const fields = new Set([...equal, ...sorted].map((f) => f.fieldPath));
  if (fields.size <= 1 || sorted.length === 0) return null;
  return { equal: [...new Map(equal.map((f) => [f.fieldPath, f])).values()], sorted };
}

const flip = (order) => (order === "ASCENDING" ? "DESCENDING" : "ASCENDING");

function serves(index, needed) {
  const fields = index.fields.filter((f) => f.fieldPath !== DOCUMENT_ID);
  if (fields.length !== needed.equal.length + needed.sorted.length) return false;
  const head = fields.slice(0, needed.equal.length);
  const tail = fields.slice(needed.equal.length);
  const equalOk = needed.equal.every((e) =>
    head.some(
      (h) => h.fieldPath === e.fieldPath && (e.arrayConfig ? h.arrayConfig === "CONTAINS" : h.order !== undefined),
    ),
  );
  const same = needed.sorted.every((s, i) => tail[i]?.fieldPath === s.fieldPath && tail[i]?.order === s.order);
  const reversed = needed.sorted.every(
    (s, i) => tail[i]?.fieldPath === s.fieldPath && tail[i]?.order === flip(s.order),
  );
  return equalOk && (same || reversed);
}

function missingIndexes(shapes, indexes) {
  return shapes.filter((shape) => {
    const needed = requiredIndex(shape);
    return needed !== null && !indexes.some((i) => i.collectionGroup === shape.collection && serves(i, needed));
  });
}

const describeShape = (s) =>
  `${s.collection}: ${s.filters.map((f) => `${f.field} ${f.op}`).join(", ") || "no filter"}${
    s.orders.length ? `; order by ${s.orders.map((o) => `${o.field} ${o.direction}`).join(", ")}` : ""
  }`;

module.exports = { requiredIndex, missingIndexes, describeShape };
