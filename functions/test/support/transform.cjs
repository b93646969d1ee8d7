/**
 * Jest's TypeScript loader: esbuild strips the types of one file at a time, as `isolatedModules`
 * already promises is safe. The type check runs once for the whole tree (`npm run typecheck`, the
 * first step of `npm test`), so loading a file never checks it again.
 */
const { createHash } = require("node:crypto");
const { transformSync, version } = require("esbuild");

module.exports = {
  process(source, filename) {
    const { code, map } = transformSync(source, {
      loader: "ts",
      format: "cjs",
      target: "node24",
      sourcefile: filename,
      sourcemap: "external",
      sourcesContent: false,
    });
    return { code, map };
  },
  getCacheKey(source, filename) {
    return createHash("sha256").update(version).update("\0").update(filename).update("\0").update(source).digest("hex");
  },
};
