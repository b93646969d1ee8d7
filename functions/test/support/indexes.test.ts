/**
 * The rules by which a query needs a composite index (indexes.cjs), held to what Firestore
 * documents, and to this project's firestore.indexes.json for the queries the service makes.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { missingIndexes, requiredIndex, type CompositeIndex, type QueryShape } from "./indexes.cjs";

const { indexes } = JSON.parse(readFileSync(join(__dirname, "..", "..", "..", "firestore.indexes.json"), "utf8")) as {
  indexes: CompositeIndex[];
};
const shape = (collection: string, filters: string[][], orders: string[][] = []): QueryShape => ({
  collection,
  filters: filters.map(([field, op]) => ({ field: field as string, op: op as string })),
  orders: orders.map(([field, direction]) => ({ field: field as string, direction: direction as "ASCENDING" })),
});

describe("which queries need a composite index", () => {
  it("needs none for one field, for equalities alone, or for an order by the document id", () => {
    expect(requiredIndex(shape("outbox", [["state", "EQUAL"]]))).toBeNull();
    expect(requiredIndex(shape("sends", [["at", "GREATER_THAN"]], [["at", "ASCENDING"]]))).toBeNull();
    expect(
      requiredIndex(
        shape("people", [
          ["emails", "ARRAY_CONTAINS"],
          ["status", "EQUAL"],
        ]),
      ),
    ).toBeNull();
    expect(requiredIndex(shape("personHistory", [["by.personId", "EQUAL"]], [["__name__", "ASCENDING"]]))).toBeNull();
  });

  it("needs one for an equality with an inequality or an order on another field, the inequality's field first", () => {
    expect(
      requiredIndex(
        shape("sends", [
          ["address", "EQUAL"],
          ["at", "GREATER_THAN"],
        ]),
      ),
    ).toEqual({
      equal: [{ fieldPath: "address" }],
      sorted: [{ fieldPath: "at", order: "ASCENDING" }],
    });
    expect(
      requiredIndex(
        shape(
          "sends",
          [
            ["client", "EQUAL"],
            ["at", "GREATER_THAN"],
          ],
          [["seq", "DESCENDING"]],
        ),
      ),
    ).toEqual({
      equal: [{ fieldPath: "client" }],
      sorted: [
        { fieldPath: "at", order: "ASCENDING" },
        { fieldPath: "seq", order: "DESCENDING" },
      ],
    });
  });

  it("finds the service's queries in firestore.indexes.json, in either direction, and names one missing", () => {
    const served = [
      shape(
        "outbox",
        [
          ["state", "EQUAL"],
          ["nextAttemptAt", "LESS_THAN_OR_EQUAL"],
        ],
        [["nextAttemptAt", "ASCENDING"]],
      ),
      shape(
        "sends",
        [
          ["client", "EQUAL"],
          ["at", "GREATER_THAN"],
        ],
        [["at", "DESCENDING"]],
      ),
      shape(
        "people",
        [
          ["searchTerms", "ARRAY_CONTAINS"],
          ["status", "EQUAL"],
        ],
        [["listKey", "DESCENDING"]],
      ),
      shape("personHistory", [
        ["personId", "EQUAL"],
        ["event", "NOT_EQUAL"],
      ]),
    ];
    expect(missingIndexes(served, indexes)).toEqual([]);
    const unserved = shape(
      "sends",
      [
        ["domain", "EQUAL"],
        ["at", "GREATER_THAN"],
      ],
      [["client", "ASCENDING"]],
    );
    const wrongWay = shape(
      "people",
      [["status", "EQUAL"]],
      [
        ["listKey", "ASCENDING"],
        ["role", "DESCENDING"],
      ],
    );
    expect(missingIndexes([unserved, wrongWay], indexes)).toEqual([unserved, wrongWay]);
  });
});
