/**
 * bench/RESULTS.md is written by several scripts, each owning one section between markers of its
 * own (`<!-- name:start -->` … `<!-- name:end -->`): a script rewrites its section and leaves the
 * others as they are.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { root } from "./functions.ts";

export const RESULTS_PATH = join(root, "bench", "RESULTS.md");

const markers = (name: string) => [`<!-- ${name}:start -->`, `<!-- ${name}:end -->`] as const;

/** The section `name` as it stands in `text`, markers included, or null when it has none. */
export function sectionOf(text: string, name: string): string | null {
  const [start, end] = markers(name);
  const from = text.indexOf(start);
  const to = text.indexOf(end, from);
  return from < 0 || to < 0 ? null : text.slice(from, to + end.length);
}

/**
 * Replaces section `name` with `lines`; a section not there yet goes before section `before`
 * (or at the end when that one is missing too).
 */
export function writeSection(name: string, lines: string[], before?: string): void {
  const previous = existsSync(RESULTS_PATH) ? readFileSync(RESULTS_PATH, "utf8") : "";
  const [start, end] = markers(name);
  const block = `${start}\n${lines.join("\n")}\n${end}`;
  const current = sectionOf(previous, name);
  const next = before === undefined ? null : sectionOf(previous, before);
  const text =
    current !== null
      ? previous.replace(current, () => block)
      : next !== null
        ? previous.replace(next, () => `${block}\n\n${next}`)
        : `${previous.replace(/\n*$/, "\n\n")}${block}\n`;
  writeFileSync(RESULTS_PATH, text);
}
