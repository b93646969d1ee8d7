/**
 * Invariants of what the service left in Firestore, read directly (with the load paused, so the
 * collections are read at rest). Run twice: just before the restart wipes the store, and at the end.
 */
import { createHash } from "node:crypto";
import type { Check } from "./invariants.ts";
import type { ExchangeTrace } from "./context.ts";
import { all } from "./store.ts";

const millis = (t: any): number => (typeof t?.toMillis === "function" ? t.toMillis() : NaN);

/** No uid or address on two people, and the key claims agree with the people both ways (nothing half-written). */
async function peopleUnique(label: string): Promise<Check> {
  const [people, keys] = await Promise.all([all("people"), all("personKeys")]);
  const owners = new Map<string, string[]>();
  let missingKeys = 0;
  const keyOf = new Map(keys.map((k) => [k.id, String(k.data.personId)]));
  for (const p of people) {
    for (const [kind, field] of [
      ["uid", "uids"],
      ["email", "emails"],
      ["phone", "phones"],
    ] as const) {
      for (const value of (p.data[field] ?? []) as string[]) {
        const id = `${kind}:${encodeURIComponent(value)}`;
        owners.set(id, [...(owners.get(id) ?? []), p.id]);
        if (keyOf.get(id) !== p.id) missingKeys++;
      }
    }
  }
  const shared = [...owners.values()].filter((ids) => ids.length > 1).length;
  const orphanKeys = keys.filter((k) => !(owners.get(k.id) ?? []).includes(String(k.data.personId))).length;
  const pending = people.filter((p) => p.data.status === "pending").length;
  return {
    name: `No uid or address on two people; people and their key claims agree (${label})`,
    pass: shared === 0 && missingKeys === 0 && orphanKeys === 0,
    numbers: `${people.length} people (${pending} pending), ${keys.length} key claims; shared: ${shared}, values without their claim: ${missingKeys}, claims without their person: ${orphanKeys}`,
  };
}

async function attemptsStored(label: string): Promise<Check> {
  const codes = await all("emailCodes");
  const attempts = codes.map((c) => Number(c.data.attempts ?? 0));
  const over = attempts.filter((n) => n > 5).length;
  const destroyed = codes.filter((c) => c.data.state !== "ready").length;
  return {
    name: `No stored email code has more than five attempts (${label})`,
    pass: over === 0,
    numbers: `${codes.length} code records (${destroyed} destroyed tombstones), most attempts ${Math.max(0, ...attempts)}, over five: ${over}`,
  };
}

async function limitsStored(label: string): Promise<Check> {
  const records = await all("emailCodeLimits");
  let breaches = 0;
  let most = 0;
  for (const r of records) {
    const sends = ((r.data.sends ?? []) as unknown[]).map(millis).sort((a, b) => a - b);
    most = Math.max(most, sends.length);
    if (sends.length > 5) breaches++;
    for (let i = 1; i < sends.length; i++) if ((sends[i] as number) - (sends[i - 1] as number) < 60_000) breaches++;
  }
  return {
    name: `Stored send records keep the limits: ≥ 60 s apart, ≤ 5 an hour (${label})`,
    pass: breaches === 0,
    numbers: `${records.length} addresses, most sends recorded for one: ${most}, breaches: ${breaches}`,
  };
}

/** A code some caller saw redeemed (200, 403 not approved, or 401 already used) is stored as redeemed. */
async function exchangeStored(label: string, epoch: number, traces: ExchangeTrace[]): Promise<Check> {
  const stored = new Map((await all("exchangeCodes")).map((d) => [d.id, d.data]));
  const mine = traces.filter((t) => t.epoch === epoch);
  const seenRedeemed = mine.filter((t) =>
    t.answers.some(
      (a) =>
        a.status === 200 ||
        (a.status === 403 && a.error === "Account not approved") ||
        (a.status === 401 && a.error === "Code already used"),
    ),
  );
  const notMarked = seenRedeemed.filter(
    (t) => !Number.isFinite(millis(stored.get(createHash("sha256").update(t.code, "utf8").digest("hex"))?.redeemedAt)),
  ).length;
  const redeemedDocs = [...stored.values()].filter((d) => Number.isFinite(millis(d.redeemedAt))).length;
  return {
    name: `Redeemed exchange codes are stored as redeemed (${label})`,
    pass: notMarked === 0,
    numbers: `${stored.size} codes stored (${redeemedDocs} redeemed); ${seenRedeemed.length} seen redeemed by callers, not marked: ${notMarked}`,
  };
}

/**
 * An authorization code some caller got tokens for is stored as used, with the hash of the
 * access token it gave; every used code's token is either stored for that code's person or
 * revoked (a later presentation), and no access token exists that no used code gave.
 */
async function authorizationsStored(label: string, epoch: number, traces: ExchangeTrace[]): Promise<Check> {
  const sha = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");
  const [codes, tokens] = await Promise.all([all("oidcCodes"), all("oidcAccessTokens")]);
  const stored = new Map(codes.map((d) => [d.id, d.data]));
  const won = traces.filter((t) => t.epoch === epoch && t.answers.some((a) => a.status === 200));
  const notMarked = won.filter((t) => {
    const d = stored.get(sha(t.code));
    return !Number.isFinite(millis(d?.usedAt)) || typeof d?.accessTokenHash !== "string";
  }).length;
  const given = new Set(codes.map((d) => d.data.accessTokenHash).filter((h): h is string => typeof h === "string"));
  const orphans = tokens.filter((t) => !given.has(t.id)).length;
  const used = codes.filter((d) => Number.isFinite(millis(d.data.usedAt))).length;
  return {
    name: `Authorization codes that gave tokens are stored as used; every stored access token was given by a used code (${label})`,
    pass: notMarked === 0 && orphans === 0,
    numbers: `${codes.length} codes stored (${used} used), ${tokens.length} access tokens stored; ${won.length} seen redeemed by callers, not marked: ${notMarked}; tokens no code gave: ${orphans}`,
  };
}

/** A bridge state whose callback signed someone in (or was refused as used) is stored as used; none is stored by its value. */
async function bridgeStatesStored(label: string, epoch: number, traces: ExchangeTrace[]): Promise<Check> {
  const stored = new Map((await all("bridgeStates")).map((d) => [d.id, d.data]));
  const signedIn = traces.filter((t) => t.epoch === epoch && t.answers.some((a) => a.status === 302));
  const notMarked = signedIn.filter(
    (t) => !Number.isFinite(millis(stored.get(createHash("sha256").update(t.code, "utf8").digest("hex"))?.usedAt)),
  ).length;
  const byValue = traces.filter((t) => stored.has(t.code)).length;
  const used = [...stored.values()].filter((d) => Number.isFinite(millis(d.usedAt))).length;
  return {
    name: `Bridge states that signed someone in are stored as used, and only by their hash (${label})`,
    pass: notMarked === 0 && byValue === 0,
    numbers: `${stored.size} states stored (${used} used); ${signedIn.length} seen signing in, not marked: ${notMarked}; stored under the state itself: ${byValue}`,
  };
}

export async function storedChecks(
  label: string,
  epoch: number,
  traces: ExchangeTrace[],
  authorizations: ExchangeTrace[],
  bridges: ExchangeTrace[],
): Promise<Check[]> {
  return Promise.all([
    peopleUnique(label),
    attemptsStored(label),
    limitsStored(label),
    exchangeStored(label, epoch, traces),
    authorizationsStored(label, epoch, authorizations),
    bridgeStatesStored(label, epoch, bridges),
  ]);
}
