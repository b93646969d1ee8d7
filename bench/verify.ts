/**
 * Target 1: session-token verify, in-process, ours vs firebase-admin's verifySessionCookie with
 * its keys cached. Same process, alternating rounds, medians of rounds; pin it to one core:
 *   taskset -c 0 node bench/verify.ts
 */
import {
  constants,
  createHmac,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  randomBytes,
  sign,
  timingSafeEqual,
  verify as verifySignature,
} from "node:crypto";
import { conventionalVerifier } from "./lib/conventional.ts";
import { service } from "./lib/functions.ts";
import { sessionKeysJson } from "./lib/keys.ts";
import { fmt, median, range } from "./lib/stats.ts";

interface Tokens {
  issue(
    c: { uid: string; personId: string; sessionId: string; authTime: Date; amr: string[] },
    now: Date,
    ms: number,
  ): Promise<{ token: string }>;
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

export interface AlgorithmCheck {
  alg: string;
  published: boolean;
  check: () => boolean;
}

export const RS256 = "RS256 (RSA-2048)";
type KeyPair = ReturnType<typeof generateKeyPairSync>;

/**
 * The bare signature check of each JWS algorithm a session token could use, on the same signing
 * input: what any verifier of that algorithm is bounded by on this core. `published` says whether
 * its verification key can be handed out (a JWKS) or must stay a shared secret. RS256 is checked
 * with the session token's own key and signature: the ceiling of our full check.
 */
export function algorithmChecks(signed: Buffer, session: KeyPair, sessionSignature: Buffer): AlgorithmCheck[] {
  // Each in node:crypto's fastest form: the KeyObject itself, not wrapped in an options object
  // (which costs ~10 µs a call), unless the algorithm needs an option (PSS padding). ES256 is checked
  // on its DER form; turning JOSE's raw r||s into it is a few bytes of work.
  const asymmetric = (
    alg: string,
    pair: KeyPair,
    digest: string | null,
    padding?: object,
    signature: Buffer = sign(digest, signed, padding ? { key: pair.privateKey, ...padding } : pair.privateKey),
  ): AlgorithmCheck => {
    const key = padding ? { key: pair.publicKey, ...padding } : pair.publicKey;
    return { alg, published: true, check: () => verifySignature(digest, signed, key, signature) };
  };
  const secret = randomBytes(32);
  const mac = createHmac("sha256", secret).update(signed).digest();
  const checks = [
    asymmetric(RS256, session, "sha256", undefined, sessionSignature),
    asymmetric("PS256 (RSA-2048)", generateKeyPairSync("rsa", { modulusLength: 2048 }), "sha256", {
      padding: constants.RSA_PKCS1_PSS_PADDING,
      saltLength: 32,
    }),
    asymmetric("ES256 (P-256)", generateKeyPairSync("ec", { namedCurve: "P-256" }), "sha256"),
    asymmetric("EdDSA (Ed25519)", generateKeyPairSync("ed25519"), null),
    {
      alg: "HS256",
      published: false,
      check: () => timingSafeEqual(createHmac("sha256", secret).update(signed).digest(), mac),
    },
  ];
  // Each must actually succeed, or its figure means nothing.
  for (const { alg, check } of checks) if (!check()) throw new Error(`the bare ${alg} check failed`);
  return checks;
}

export async function runVerifyBench(): Promise<{
  ours: number[];
  cached: number[];
  baseline: number[];
  signing: number[];
  algorithms: Record<string, { published: boolean; rates: number[] }>;
}> {
  const { sessionTokens, parseKeyRing, verifySessionToken } = service<TokenModule>("core/sessions/session-token");
  const keys = sessionKeysJson("bench");
  const tokens = sessionTokens(keys, "https://id.example.test", "example.test");
  const ring = parseKeyRing(keys);
  const now = new Date();
  const { token } = await tokens.issue(
    { uid: "uid-1", personId: "person-1", sessionId: "session-1", authTime: now, amr: ["otp"] },
    now,
    14 * 24 * 3600 * 1000,
  );
  const { auth, mint } = await conventionalVerifier();
  const cookie = await mint("uid-1", Math.floor(now.getTime() / 1000));
  // Both must actually succeed, or the figures mean nothing.
  if (!(await tokens.verify(token, now))) throw new Error("our token did not verify");
  await auth.verifySessionCookie(cookie, false);

  // The full check (signature and claims), as for a token this instance has not seen yet.
  const full = async () => verifySessionToken(ring, token, now, "https://id.example.test", "example.test");
  const dot = token.lastIndexOf(".");
  const signed = Buffer.from(token.slice(0, dot), "latin1");
  const privateKey = createPrivateKey({ key: JSON.parse(keys)[0], format: "jwk" });
  const candidates = algorithmChecks(
    signed,
    { privateKey, publicKey: createPublicKey(privateKey) },
    Buffer.from(token.slice(dot + 1), "base64url"),
  );
  // What issuing costs instead: one RSA-2048 signature over the same bytes (an ID token's price, section 5).
  const signOnce = async () => sign("sha256", signed, privateKey);
  const ours: number[] = [];
  const cached: number[] = [];
  const baseline: number[] = [];
  const signing: number[] = [];
  const algorithms = Object.fromEntries(
    candidates.map(({ alg, published }) => [alg, { published, rates: [] as number[] }]),
  );
  await opsPerSecond(full); // warm-up
  await opsPerSecond(() => auth.verifySessionCookie(cookie, false));
  for (let r = 0; r < ROUNDS; r++) {
    ours.push(await opsPerSecond(full));
    cached.push(await opsPerSecond(() => tokens.verify(token, now)));
    baseline.push(await opsPerSecond(() => auth.verifySessionCookie(cookie, false)));
    signing.push(await opsPerSecond(signOnce));
    for (const { alg, check } of candidates) algorithms[alg]?.rates.push(await opsPerSecond(async () => check()));
  }
  return { ours, cached, baseline, signing, algorithms };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const results = await runVerifyBench();
  const { ours, cached, baseline } = results;
  if (process.argv.includes("--json")) {
    console.log(JSON.stringify(results));
    process.exit(0);
  }
  console.log(`session-token verify (RS256, keys imported once): median ${fmt(median(ours))}/s (range ${range(ours)})`);
  console.log(
    `session-token verify, token seen before:         median ${fmt(median(cached))}/s (range ${range(cached)})`,
  );
  console.log(
    `firebase-admin verifySessionCookie (keys cached):  median ${fmt(median(baseline))}/s (range ${range(baseline)})`,
  );
  console.log(`ratio: ${(median(ours) / median(baseline)).toFixed(2)}×`);
}
