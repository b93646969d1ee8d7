import type { Deps } from "../deps";
import * as limits from "../../store/email-code-limits";
import * as codes from "../../store/email-codes";
import * as budgets from "../../store/send-budgets";
import { HOUR, MINUTE } from "../../clock";
import * as people from "../../store/people";
import { recordAccessRequest } from "../people/access-requests";
import { codeMail } from "./code-mail";
import { addressIds, clientBudgetId, codeHash, codeMatches, type PepperKey } from "./code-pepper";
import { canonicalEmail } from "../email-address";
import {
  afterFailure,
  afterRefund,
  afterSend,
  afterSuccess,
  budgetRefusal,
  CODE_LIFETIME_MS,
  combine,
  decideCheck,
  forgetAfter,
  isLocked,
  normaliseCode,
  nextSendAt,
  sendRefusal,
  serviceShards,
  sixDigits,
  type CheckResult,
  type LimitState,
  type Purpose,
  withinWindow,
} from "./rules";
import { AppError, ensure, limitReached, type ErrorCode } from "../errors";
import { errorText } from "../../logger";

type CodeDeps = Pick<Deps, "store" | "clock" | "random" | "config" | "mailer" | "log" | "transaction" | "pepper">;

/** The CODE_PEPPER ring, parsed once per instance (deps.ts). */
function ringOf(deps: Pick<Deps, "pepper">): PepperKey[] {
  if (deps.pepper === null) throw new Error("CODE_PEPPER is not available to this function");
  return deps.pepper;
}

/** One send in flight: which code document it wrote, and the slot it took. */
interface Issued {
  addressId: string;
  kid: string;
  sendId: string;
  sentAt: Date;
}

/**
 * POST /auth/otp/send. Decides and records in one transaction (limits and the new code), then
 * mails outside it. Only when the mail did not go does a second transaction destroy the code
 * and give the slot back: until then nobody but the mailbox can know the code (it is random
 * and never logged), so a delivered send costs exactly one transaction. An address on no
 * account takes the same path with the same writes and the same wait, and gets no mail.
 */
export async function requestCode(deps: CodeDeps, rawEmail: string, purpose: Purpose, client: string): Promise<void> {
  const address = canonicalEmail(rawEmail);
  ensure(address, "email_invalid");
  const mailer = deps.mailer;
  ensure(mailer, "email_not_configured");
  const ring = ringOf(deps);
  // A sign-in code only goes to an address on a person; anyone may confirm an address for an access request.
  const deliver = purpose === "request-access" || (await people.findByEmail(deps.store, address)) !== null;
  const code = sixDigits(deps.random);
  const issued = await issue(deps, ring, address, purpose, code, client);
  try {
    // Never inside a transaction function: Firestore retries those, and a retry would mail again.
    if (deliver) await mailer.send(codeMail(address, code, purpose, deps.config.idUrl));
    else await mailer.imitateSend();
  } catch (err) {
    deps.log.error("email code not delivered", { error: errorText(err) });
    await withdraw(deps, issued);
    throw new AppError("email_delivery_failed");
  }
}

async function issue(
  deps: CodeDeps,
  ring: PepperKey[],
  address: string,
  purpose: Purpose,
  code: string,
  client: string,
): Promise<Issued> {
  const { store } = deps;
  const ids = addressIds(ring, address);
  const [key, id] = [ring[0] as PepperKey, ids[0] as string];
  const sendId = deps.random.id();
  const { perClientPerHour, perServicePerMinute } = deps.config.sendBudgets;
  const { shards, perShard } = serviceShards(perServicePerMinute);
  const budgetIds = [`client:${clientBudgetId(key, client)}`, `service:${deps.random.int(0, shards)}`];
  return deps.transaction(async (tx) => {
    const now = deps.clock.now();
    const found = await limits.findAll(store, ids, tx);
    const [byClient, byService] = (await budgets.findAll(store, budgetIds, tx)) as [budgets.Budget, budgets.Budget];
    const state = combine(found);
    // Counted in the transaction that issues the code: of concurrent sends, one wins and the rest see it.
    // The address's own limits first (the contract's answers), then the client's and the service's.
    const refusal = sendRefusal(state, now);
    if (refusal) throw limitReached(refusal, now, nextSendAt(state, now));
    const clientRetry = budgetRefusal(byClient.sends, now, HOUR, perClientPerHour);
    if (clientRetry) throw limitReached("otp_client_budget", now, clientRetry);
    const serviceRetry = budgetRefusal(byService.sends, now, MINUTE, perShard);
    if (serviceRetry) throw limitReached("otp_service_budget", now, serviceRetry);
    for (const [budget, windowMs] of [
      [byClient, HOUR],
      [byService, MINUTE],
    ] as const) {
      const sends = [...withinWindow(budget.sends, now, windowMs), now];
      budgets.save(store, tx, { id: budget.id, sends }, new Date(now.getTime() + windowMs));
    }
    const next = afterSend(state, now);
    limits.save(store, tx, id, key.kid, next, forgetAfter(next), found);
    // Stored as a keyed hash only: six digits are too few to survive an unkeyed one.
    const hash = codeHash(key, purpose, address, code);
    const expiresAt = new Date(now.getTime() + CODE_LIFETIME_MS);
    codes.replace(
      store,
      tx,
      { addressId: id, kid: key.kid, hash, state: "ready", attempts: 0, sendId, createdAt: now, expiresAt },
      ids,
    );
    return { addressId: id, kid: key.kid, sendId, sentAt: now };
  });
}

/** A send whose mail did not go: its code can never be used, and it costs no slot. */
async function withdraw(deps: CodeDeps, issued: Issued): Promise<void> {
  const { store } = deps;
  await deps.transaction(async (tx) => {
    const code = await codes.findFirst(store, [issued.addressId], tx);
    const found = await limits.findAll(store, [issued.addressId], tx);
    // A newer send may have replaced the code meanwhile; that one is not ours to remove.
    if (code !== null && code.sendId === issued.sendId) codes.remove(store, tx, issued.addressId);
    const state = afterRefund(combine(found), issued.sentAt);
    limits.save(store, tx, issued.addressId, issued.kid, state, forgetAfter(state), found);
  });
}

/**
 * One check of a code for `purpose`, decided and recorded in one transaction: the attempt, a
 * destroyed or consumed code, and the address's run of failures are written together with the
 * outcome, so concurrent guesses cannot share a spare attempt.
 */
export async function checkCode(
  deps: CodeDeps,
  address: string,
  purpose: Purpose,
  otp: string,
  consume: boolean,
): Promise<CheckResult> {
  const { store } = deps;
  const code = normaliseCode(otp);
  ensure(code, "email_code_malformed");
  const ring = ringOf(deps);
  const ids = addressIds(ring, address);
  return deps.transaction(async (tx) => {
    const now = deps.clock.now();
    const found = await limits.findAll(store, ids, tx);
    const live = await codes.findFirst(store, ids, tx);
    const state = combine(found);
    const stored = live?.hash ? { kid: live.kid, hash: live.hash } : null;
    const decision = decideCheck(
      live,
      isLocked(state, now),
      now,
      consume,
      () => stored !== null && codeMatches(ring, stored, purpose, address, code),
    );
    if (live !== null) {
      if (decision.code === "attempt") codes.recordAttempt(store, tx, live.addressId, live.attempts + 1);
      if (decision.code === "expire" || decision.code === "exhaust")
        codes.destroy(store, tx, live.addressId, decision.code === "expire" ? "expired" : "exhausted");
      if (decision.code === "consume") codes.remove(store, tx, live.addressId);
    }
    const next: LimitState | null = decision.failed
      ? afterFailure(state, now)
      : decision.result === "valid" && state.failures > 0
        ? afterSuccess(state)
        : null;
    if (next) limits.save(store, tx, ids[0] as string, (ring[0] as PepperKey).kid, next, forgetAfter(next), found);
    return decision.result;
  });
}

const REFUSALS: Record<Exclude<CheckResult, "valid">, ErrorCode> = {
  invalid: "email_code_invalid",
  expired: "email_code_expired",
  exhausted: "email_code_exhausted",
};

/**
 * POST /auth/otp/verify: checks a code without consuming it. A correct `request-access` code
 * records the access request (core/access-requests).
 */
export async function verifyCode(deps: CodeDeps, rawEmail: string, otp: string, purpose: Purpose): Promise<void> {
  const address = canonicalEmail(rawEmail);
  // An address that cannot hold a code cannot match one; nothing is read or counted.
  ensure(address, "email_code_invalid");
  const result = await checkCode(deps, address, purpose, otp, false);
  if (result !== "valid") throw new AppError(REFUSALS[result]);
  if (purpose === "request-access") await recordAccessRequest(deps, address);
}
