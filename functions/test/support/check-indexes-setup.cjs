/** Jest's global setup: the query shapes of an earlier run are not this run's (check-indexes.cjs). */
const { rmSync } = require("node:fs");
const { join } = require("node:path");

module.exports = async function clearShapes() {
  rmSync(join(__dirname, "..", "..", "..", ".stack", "query-shapes"), { recursive: true, force: true });
};
