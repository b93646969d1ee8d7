import { MINUTE } from "../../clock";
import type { Deps } from "../deps";
import * as codes from "../../store/exchange-codes";
import * as people from "../../store/people";
import { AppError, ensure } from "../errors";
import { ensureAccess } from "../people/access";
import { pkceMatches } from "../pkce";
import { sha256 } from "../secrets";
import { type Person } from "../model/person";

/** A code travels in a URL to a sibling app that redeems it at once: a minute is plenty. */
export const EXCHANGE_CODE_LIFETIME_MS = 1 * MINUTE;

/**
 * Issues a single-use code that POST /auth/exchange redeems for this person. Returns the code.
 * `binding`: the hand-off it was issued for (core/sessions/handoff), whose PKCE verifier must come with it.
 */
export async function issueExchangeCode(
  deps: Pick<Deps, "store" | "clock" | "random">,
  personId: string,
  uid: string,
  binding: codes.Binding | null = null,
): Promise<string> {
  const code = deps.random.token(32);
  const now = deps.clock.now();
  await codes.save(deps.store, {
    hash: sha256(code),
    uid,
    personId,
    createdAt: now,
    expiresAt: new Date(now.getTime() + EXCHANGE_CODE_LIFETIME_MS),
    redeemedAt: null,
    app: binding?.app ?? null,
    redirectUri: binding?.redirectUri ?? null,
    codeChallenge: binding?.codeChallenge ?? null,
  });
  return code;
}

/**
 * Redeems a code once. The redeem is decided inside one transaction, so of any number of
 * concurrent redemptions exactly one wins; it is consumed before the person is looked at,
 * whether or not they turn out to be approved, and before its verifier is checked: a hand-off
 * code presented without the verifier was caught on its way, and is spent so it cannot be tried again.
 */
export async function redeemExchangeCode(
  deps: Pick<Deps, "store" | "clock" | "transaction">,
  code: string,
  codeVerifier: string | null = null,
): Promise<{ person: Person; uid: string }> {
  const hash = sha256(code);
  const redeemed = await deps.transaction(async (tx) => {
    const stored = await codes.findByHash(deps.store, hash, tx);
    ensure(stored, "invalid_code");
    ensure(stored.redeemedAt === null, "code_used");
    const now = deps.clock.now();
    ensure(now.getTime() < stored.expiresAt.getTime(), "code_expired");
    codes.markRedeemed(deps.store, tx, hash, now);
    return stored;
  });
  if (redeemed.codeChallenge !== null && (codeVerifier === null || !pkceMatches(codeVerifier, redeemed.codeChallenge)))
    throw new AppError("invalid_code");
  const person = await people.findById(deps.store, redeemed.personId);
  ensureAccess(person, {}, "exchange");
  return { person, uid: redeemed.uid };
}
