/** Where a run's time went: its slowest test files, from the results jest writes with --json. */
import { relative } from "node:path";

export interface FileResult {
  name: string;
  perfStats?: { start: number; end: number };
  startTime?: number;
  endTime?: number;
}

export function slowestFiles(results: { testResults?: FileResult[] }, root: string, count: number): string {
  const timed = (results.testResults ?? [])
    .map((r) => {
      const start = r.perfStats?.start ?? r.startTime ?? 0;
      const end = r.perfStats?.end ?? r.endTime ?? 0;
      return { file: relative(root, r.name), seconds: (end - start) / 1000 };
    })
    .sort((a, b) => b.seconds - a.seconds)
    .slice(0, count);
  if (timed.length === 0) return "";
  const width = Math.max(...timed.map((t) => t.file.length));
  return [
    `\nThe ${timed.length} slowest test files:`,
    ...timed.map((t) => `  ${t.file.padEnd(width)}  ${t.seconds.toFixed(1).padStart(6)} s`),
  ].join("\n");
}
