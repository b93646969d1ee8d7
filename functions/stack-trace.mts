/**
 * `node functions/stack-trace.mts [--maps <dir>] < log.txt`: a stack trace from a deployed
 * function's logs, each place in a bundle (`…/bundles/<name>.js:<line>:<column>`) put back where it
 * was written (`src/…ts:<line>:<column>`, or the package under node_modules), through the source
 * map `npm run build` writes beside each bundle. The bundles are built the same, byte for byte,
 * from the same commit and lock file, so the maps of a rebuild of the deployed commit fit
 * (docs/deploying.md, "Cold start"). Anything else in the text passes through unchanged.
 */
import { readFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const here = dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({ options: { maps: { type: "string", default: join(here, "lib", "bundles") } } });
const mapsDir = resolve(values.maps);

const maps = new Map<string, SourceMap>();
function mapOf(bundle: string): SourceMap {
  let map = maps.get(bundle);
  if (!map) {
    map = new SourceMap(JSON.parse(readFileSync(join(mapsDir, `${bundle}.js.map`), "utf8")));
    maps.set(bundle, map);
  }
  return map;
}

/** A place in a bundle, where it was written; as it was when the map does not know it. */
function origin(place: string, bundle: string, line: string, column: string): string {
  const found = mapOf(bundle).findOrigin(Number(line), Number(column));
  if (!("fileName" in found)) return place;
  // The map names sources from the bundle's place (../../src/…): from functions/, wherever it is kept.
  const file = found.fileName.replace(/^(\.\.\/)+/, "");
  return `${file}:${found.lineNumber}:${found.columnNumber}`;
}

const text = readFileSync(0, "utf8");
process.stdout.write(text.replace(/[^\s()"]*bundles\/([\w-]+)\.js:(\d+):(\d+)/g, origin));
