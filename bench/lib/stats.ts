export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export function range(values: number[]): string {
  return `${Math.round(Math.min(...values)).toLocaleString("en")}–${Math.round(Math.max(...values)).toLocaleString("en")}`;
}

export function fmt(n: number): string {
  return Math.round(n).toLocaleString("en");
}
