/** The nearest command name to a mistyped one, for "did you mean". */

/** Edits (insert, delete, substitute, swap two neighbours) from a to b. */
export function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) (d[0] as number[])[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const row = d[i] as number[];
    const up = d[i - 1] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min((up[j] as number) + 1, (row[j - 1] as number) + 1, (up[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j] as number, ((d[i - 2] as number[])[j - 2] as number) + 1);
    }
  }
  return (d[a.length] as number[])[b.length] as number;
}

/**
 * The command the words most likely meant: the closest name within a third of its length, so a
 * slip of a letter or two is caught and `frobnicate` suggests nothing.
 */
export function nearest(words: string[], names: string[]): string | null {
  const [first = "", second] = words;
  let best: { name: string; d: number } | null = null;
  for (const name of names) {
    const typed = name.includes(" ") ? `${first} ${second ?? ""}`.trim() : first;
    const d = distance(typed, name);
    if (d <= Math.max(1, Math.floor(name.length / 3)) && (best === null || d < best.d)) best = { name, d };
  }
  return best?.name ?? null;
}
