/** Shared helpers of the email-code tests (email-code-send, -verify, -sign-in). */
import request from "supertest";
import type { Express } from "express";
import { addressIds, parsePepper } from "../../src/core/pepper";
import type { Deps } from "../../src/deps";
import type { Logger } from "../../src/logger";
import { cryptoRandom, type Random } from "../../src/random";
import * as otp from "../../src/routes/otp/otp";
import { appFor, firestore, TEST_CODE_PEPPER, testDeps, unique, type TestDeps } from "./deps";
import { personFor } from "./people";
import { type NewPerson } from "../../src/core/model/person";

export const db = firestore();
export const RUNS = 20;

/**
 * A race on one record contends for it, as in production: transactions abort and retry with the
 * SDK's backoff (a second, then longer), so one round of 50 takes seconds.
 */
export const RACE_ROUND_MS = 30_000;

/**
 * Runs `race(run)` for run 0 … runs − 1, `atOnce` side by side: each race contends on an address
 * of its own, and waits mostly on its own contention's backoff, which another's does not lengthen.
 */
export async function raceRuns(runs: number, race: (run: number) => Promise<void>, atOnce = 4): Promise<void> {
  for (let first = 0; first < runs; first += atOnce)
    await Promise.all(Array.from({ length: Math.min(atOnce, runs - first) }, (_, i) => race(first + i)));
}

/**
 * The email-code group on test deps. `racing`: requests are answered only once their work is
 * done (no request deadline short of the test's own), so no transaction outlives its round, and
 * every answer is the one that work decided.
 */
export function fresh(overrides: Partial<Deps> = {}, racing = false): { deps: TestDeps; app: Express } {
  const deps = testDeps(overrides);
  return { deps, app: appFor(otp, deps, racing ? { deadlineMs: RACE_ROUND_MS } : {}) };
}
export const post = (app: Express, path: string, body: unknown) =>
  request(app)
    .post(path)
    .send(body as object);
export const send = (app: Express, body: unknown) => post(app, "/auth/otp/send", body);
export const verify = (app: Express, body: unknown) => post(app, "/auth/otp/verify", body);
export const signIn = (app: Express, body: unknown) => post(app, "/auth/otp/sign-in", body);

/** An address held by a person (the signin purpose's "account"), with no provider account behind it. */
export async function personAddress(fields: Partial<NewPerson> = {}): Promise<string> {
  const email = `${unique("p")}@example.test`;
  await personFor({ uid: unique("uid"), email }, { projects: ["startpage"], ...fields });
  return email;
}
export const strangerAddress = () => `${unique("s")}@example.test`;
export const otherThan = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, "0");

export const idOf = (address: string, pepper = TEST_CODE_PEPPER) =>
  addressIds(parsePepper(pepper), address)[0] as string;
export const storedCode = async (address: string, pepper?: string) =>
  (await db.collection("emailCodes").doc(idOf(address, pepper)).get()).data() ?? null;
export const storedLimits = async (address: string, pepper?: string) =>
  (await db.collection("emailCodeLimits").doc(idOf(address, pepper)).get()).data() ?? null;

/** A random source that remembers the codes it drew, to try a code no mail ever carried. */
export function recordingRandom(): Random & { lastCode(): string } {
  const drawn: number[] = [];
  return {
    ...cryptoRandom,
    int: (min, max) => {
      const n = cryptoRandom.int(min, max);
      // Codes are six digits (core/email-codes/rules); other draws (a budget's shard) are not codes.
      if (min === 0 && max === 1_000_000) drawn.push(n);
      return n;
    },
    lastCode: () => String(drawn.at(-1)).padStart(6, "0"),
  };
}

export function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const keep = (message: string, fields?: Record<string, unknown>) =>
    void lines.push(JSON.stringify({ message, ...fields }));
  return { lines, info: keep, warn: keep, error: keep };
}
