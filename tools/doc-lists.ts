/**
 * `node tools/doc-lists.ts [--write | --check]`: the lists the docs keep that the code knows too
 * (every operator command, a delivery's states, the domain's records, every route), written from
 * the code between their markers. The lists are read from the functions' own sources, as their
 * unit tests read them (functions/test/unit/doc-lists.test.ts, which this runs):
 * --write puts them in the docs; --check (what `npm test`'s static checks run) fails while one is stale.
 */
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const functions = join(root, "functions");
const write = process.argv.includes("--write");

// Quiet when the lists hold: jest's report is printed only when one does not (or when writing).
const run = spawnSync(
  join(functions, "node_modules", ".bin", "jest"),
  ["--selectProjects", "unit", "--runTestsByPath", join("test", "unit", "doc-lists.test.ts")],
  {
    cwd: functions,
    stdio: write ? "inherit" : "pipe",
    encoding: "utf8",
    env: { ...process.env, NODE_OPTIONS: "--experimental-vm-modules", DOC_LISTS: write ? "write" : "check" },
  },
);
if (run.status !== 0 && !write) {
  process.stderr.write(`${run.stdout}${run.stderr}`);
  console.error("the docs' lists are not the code's: run `node tools/doc-lists.ts --write`, then read what changed");
}
process.exit(run.status ?? 1);
