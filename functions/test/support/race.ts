/**
 * What requests raced at one record may answer. On real transaction semantics the losers wait,
 * abort and retry; where contention outlasts the transaction's attempts the contract answers 503
 * with Retry-After (nothing done, so asking again is safe). Never a second success, never a 500.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a response body as supertest gives it
type Answer = { status: number; headers: Record<string, string>; body: any };

/** Exactly `winners` answers pass `won`; every other passes `lost`, or is a 503 with Retry-After. */
export function expectRaced(answers: Answer[], won: (a: Answer) => boolean, lost: (a: Answer) => boolean, winners = 1) {
  expect(answers.filter(won)).toHaveLength(winners);
  const rest = answers.filter((a) => !won(a));
  const retry = rest.filter((a) => !lost(a));
  for (const a of retry) {
    expect(a.status).toBe(503);
    expect(Number(a.headers["retry-after"])).toBeGreaterThan(0);
  }
  // Most losers are decided, not told to retry: a race that only ever answers 503 is broken.
  expect(rest.length - retry.length).toBeGreaterThan(retry.length);
}
