/**
 * Jest's global teardown: every query shape the behaviour files recorded (query-shapes.ts) must
 * find its composite index in firestore.indexes.json, or the run fails, naming each query. The
 * emulators serve any query without an index; production would refuse it.
 */
const { readdirSync, readFileSync, rmSync } = require("node:fs");
const { join } = require("node:path");
const { describeShape, missingIndexes } = require("./indexes.cjs");

const ROOT = join(__dirname, "..", "..", "..");
const SHAPES_DIR = join(ROOT, ".stack", "query-shapes");

module.exports = async function checkIndexes() {
  let files = [];
  try {
    files = readdirSync(SHAPES_DIR).filter((f) => f.endsWith(".json"));
  } catch {
    return;
  }
  const shapes = new Map();
  for (const f of files)
    for (const s of JSON.parse(readFileSync(join(SHAPES_DIR, f), "utf8"))) shapes.set(JSON.stringify(s), s);
  rmSync(SHAPES_DIR, { recursive: true, force: true });
  const { indexes } = JSON.parse(readFileSync(join(ROOT, "firestore.indexes.json"), "utf8"));
  const missing = missingIndexes([...shapes.values()], indexes);
  if (missing.length > 0)
    throw new Error(
      `${missing.length} Firestore quer${missing.length === 1 ? "y has" : "ies have"} no composite index in firestore.indexes.json:\n` +
        missing.map((s) => `  - ${describeShape(s)}`).join("\n"),
    );
  console.log(`Every one of ${shapes.size} query shapes the tests made has its index in firestore.indexes.json.`);
};
