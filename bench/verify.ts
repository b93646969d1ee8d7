/**
 * Target 1: session-token verify, in-process, ours vs firebase-admin's verifySessionCookie with
 * its keys cached. Same process, alternating rounds, medians of rounds; pin it to one core:
 *   taskset -c 0 node bench/verify.ts
 */
import { createPrivateKey, createPublicKey, sign, verify as verifySignature } from "node:crypto";
import { conventionalVerifier } from "./lib/conventional.ts";
import { service } from "./lib/functions.ts";
import { sessionKeysJson } from "./lib/keys.ts";
import { fmt, median, range } from "./lib/stats.ts";

interface Tokens {
  issue(c: { uid: string; personId: string }, now: Date, ms: number): Promise<{ token: string }>;
  verify(t: string, now: Date): Promise<unknown>;
}

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const ROUND_MS = Number(process.env.BENCH_ROUND_MS ?? 1500);

async function opsPerSecond(work: () => Promise<unknown>): Promise<number> {
  let done = 0;
  const start = performance.now();
  while (performance.now() - start < ROUND_MS) {
    // Batches of 50 keep the loop's own cost out of the figure.
    for (let i = 0; i < 50; i++) await work();
    done += 50;
  }
  return (done * 1000) / (performance.now() - start);
}

interface TokenModule {
  sessionTokens: (k: string, i: string, a: string) => Tokens;
  parseKeyRing: (k: string) => unknown;
  verifySessionToken: (ring: unknown, token: string, now: Date, i: string, a: string) => unknown;
}

export async function runVerifyBench(): Promise<{ ours: number[]; cached: number[]; baseline: number[]; signature: number[]; signing: number[] }> {
  const { sessionTokens, parseKeyRing, verifySessionToken } = service<TokenModule>("core/session-token");
  const keys = sessionKeysJson("bench");
  const tokens = sessionTokens(keys, "https://id.example.test", "example.test");
  const ring = parseKeyRing(keys);
  const now = new Date();
  const { token } = await tokens.issue({ uid: "uid-1", personId: "person-1" }, now, 14 * 24 * 3600 * 1000);
  const { auth, mint } = await conventionalVerifier();
  const cookie = await mint("uid-1", Math.floor(now.getTime() / 1000));
  // Both must actually succeed, or the figures mean nothing.
  if (!(await tokens.verify(token, now))) throw new Error("our token did not verify");
  await auth.verifySessionCookie(cookie, false);

  // The full check (signature and claims), as for a token this instance has not seen yet.
  const full = async () => verifySessionToken(ring, token, now, "https://id.example.test", "example.test");
  // The ceiling: the RSA signature check alone, on the same bytes with the same key.
  const dot = token.lastIndexOf(".");
  const signed = Buffer.from(token.slice(0, dot), "latin1");
  const signatureBytes = Buffer.from(token.slice(dot + 1), "base64url");
  const privateKey = createPrivateKey({ key: JSON.parse(keys)[0], format: "jwk" });
  const publicKey = createPublicKey(privateKey);
  if (!verifySignature("sha256", signed, publicKey, signatureBytes)) throw new Error("the bare signature check failed");
  const bare = async () => verifySignature("sha256", signed, publicKey, signatureBytes);
  // What issuing costs instead: one RSA-2048 signature over the same bytes (an ID token's price, section 5).
  const signOnce = async () => sign("sha256", signed, privateKey);
  const ours: number[] = [];
  const cached: number[] = [];
  const baseline: number[] = [];
  const signature: number[] = [];
  const signing: number[] = [];
  await opsPerSecond(full); // warm-up
  await opsPerSecond(() => auth.verifySessionCookie(cookie, false));
  for (let r = 0; r < ROUNDS; r++) {
    ours.push(await opsPerSecond(full));
    cached.push(await opsPerSecond(() => tokens.verify(token, now)));
    baseline.push(await opsPerSecond(() => auth.verifySessionCookie(cookie, false)));
    signature.push(await opsPerSecond(bare));
    signing.push(await opsPerSecond(signOnce));
  }
  return { ours, cached, baseline, signature, signing };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { ours, cached, baseline, signature, signing } = await runVerifyBench();
  if (process.argv.includes("--json")) {
    console.log(JSON.stringify({ ours, cached, baseline, signature, signing }));
    process.exit(0);
  }
  console.log(`session-token verify (RS256, keys imported once): median ${fmt(median(ours))}/s (range ${range(ours)})`);
  console.log(`session-token verify, token seen before:         median ${fmt(median(cached))}/s (range ${range(cached)})`);
  console.log(`firebase-admin verifySessionCookie (keys cached):  median ${fmt(median(baseline))}/s (range ${range(baseline)})`);
  console.log(`ratio: ${(median(ours) / median(baseline)).toFixed(2)}×`);
}
