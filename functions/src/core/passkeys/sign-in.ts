/**
 * Signing in with a passkey on the identity host: options with a challenge bound to this browser
 * (through its binding cookie) and no credentials named, then the assertion, which mints the
 * custom token the pages' landing turns into a session, as an email code or a bridge does.
 */
import {
  generateAuthenticationOptions,
  verifyAuthenticationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialRequestOptionsJSON,
} from "@simplewebauthn/server";
import type { Deps } from "../deps";
import * as challenges from "../../store/passkey-challenges";
import * as passkeys from "../../store/passkeys";
import * as people from "../../store/people";
import { AppError, ensure, type ErrorCode } from "../errors";
import { translateFailure } from "../failures";
import { constantTimeEqual, sha256 } from "../secrets";
import { expected, relyingParty, unlessRefused } from "./relying-party";
import {
  CHALLENGE_LIFETIME_MS,
  challengeOf,
  challengeUsable,
  counterVerdict,
  passkeyMethods,
  userHandleOf,
} from "./rules";
import type { Passkey } from "../model/passkey";
import type { Person } from "../model/person";
import { linkAccountOfAddress } from "../people/accounts";

type SignInDeps = Pick<
  Deps,
  "store" | "transaction" | "clock" | "random" | "config" | "log" | "identity" | "mailQueue"
>;

/**
 * POST /auth/passkeys/sign-in/options. No credentials are named (discoverable credentials: the
 * authenticator offers the person's own), so the answer is the same for everyone and says nothing
 * about who has an account or a passkey. `binding` is the browser's binding cookie's value.
 */
export async function signInOptions(deps: SignInDeps, binding: string): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const challenge = deps.random.token(32);
  const now = deps.clock.now();
  await challenges.save(deps.store, {
    hash: sha256(challenge),
    purpose: "sign-in",
    personId: null,
    sessionKey: null,
    // Kept as a digest: the cookie's value is what this browser alone holds.
    binding: sha256(binding),
    createdAt: now,
    expiresAt: new Date(now.getTime() + CHALLENGE_LIFETIME_MS),
    usedAt: null,
  });
  return generateAuthenticationOptions({
    rpID: relyingParty(deps.config).id,
    challenge: Buffer.from(challenge, "base64url"),
    timeout: CHALLENGE_LIFETIME_MS,
    userVerification: "required",
    allowCredentials: [],
  });
}

type Decision = { uid: string | null; person: Person; methods: string[]; passkeyId: string } | { refused: ErrorCode };

/**
 * POST /auth/passkeys/sign-in/verify: the custom token for the person whose passkey signed this
 * browser's challenge. Decided in one transaction: the challenge (this browser's, unused, under
 * five minutes) is used, and then the passkey must be known and unsuspected, the person's (the
 * assertion's user handle), its signature valid for one of the seven origins, the parent domain's
 * RP ID and a verified user, and its counter must move on. A counter that goes back marks the
 * passkey suspect in the same commit. Every refusal after the challenge answers alike.
 */
export async function signInWithPasskey(
  deps: SignInDeps,
  response: AuthenticationResponseJSON,
  bindings: string[],
): Promise<string> {
  const { store } = deps;
  const challenge = challengeOf(response.response.clientDataJSON);
  ensure(challenge, "passkey_challenge_invalid");
  const hash = sha256(challenge);
  const decision = await deps.transaction(async (tx): Promise<Decision> => {
    const [stored, passkey] = await Promise.all([
      challenges.findByHash(store, hash, tx),
      passkeys.findById(store, sha256(response.id), tx),
    ]);
    const person = passkey === null ? null : await people.findById(store, passkey.personId, tx);
    const now = deps.clock.now();
    // Every binding this browser holds is compared, in constant time, whichever matches.
    const bound =
      stored?.binding != null &&
      bindings.reduce((found, b) => constantTimeEqual(sha256(b), stored.binding as string) || found, false);
    // A challenge another browser was given is not this request's to spend.
    if (!challengeUsable(stored, "sign-in", now) || !bound) return { refused: "passkey_challenge_invalid" };
    challenges.markUsed(store, tx, hash, now);
    if (passkey === null || passkey.suspectAt !== null || person === null) return { refused: "passkey_not_accepted" };
    // The credential is the person's: the authenticator names its user, and it must be them.
    if (response.response.userHandle !== userHandleOf(person.id)) return { refused: "passkey_not_accepted" };
    // Its own account, or another of theirs; none left (let go with an address): their first
    // address's, made after the commit (below). Nothing at all: nothing to sign in as.
    const uid = person.uids.includes(passkey.uid) ? passkey.uid : (person.uids[0] ?? null);
    if (uid === null && person.emails.length === 0) return { refused: "passkey_not_accepted" };
    const asserted = await verifiedAssertion(deps, response, challenge, passkey);
    if (asserted === null) return { refused: "passkey_not_accepted" };
    // Only a signature that verified can mark a passkey suspect: nobody else can lock it this way.
    if (counterVerdict(passkey.counter, asserted.newCounter) === "regressed") {
      deps.log.warn("passkey sign-in: the signature counter went back; the passkey is suspect", {
        personId: person.id,
        passkeyId: passkey.id,
      });
      passkeys.markSuspect(store, tx, passkey.id, now);
      return { refused: "passkey_not_accepted" };
    }
    passkeys.recordUse(store, tx, passkey.id, {
      counter: asserted.newCounter,
      backedUp: asserted.credentialBackedUp,
      at: now,
    });
    return {
      uid,
      person,
      methods: passkeyMethods(asserted.credentialDeviceType === "multiDevice"),
      passkeyId: passkey.id,
    };
  });
  // Thrown after the commit, so a used challenge and a suspect mark are kept.
  if ("refused" in decision) throw new AppError(decision.refused);
  const uid = decision.uid ?? (await linkAccountOfAddress(deps, decision.person, decision.person.emails[0] as string));
  return translateFailure(deps, { code: "signin_failed", log: "passkey sign-in: custom token failed" }, () =>
    // The session it opens names the passkey: removing the passkey ends it.
    deps.identity.createCustomToken(uid, decision.methods, { passkeyId: decision.passkeyId }),
  );
}

/** The assertion's verified facts, or null when it does not verify. */
async function verifiedAssertion(
  deps: SignInDeps,
  response: AuthenticationResponseJSON,
  challenge: string,
  passkey: Passkey,
) {
  const result = await unlessRefused(deps, "passkey sign-in not verified", () =>
    verifyAuthenticationResponse({
      response,
      ...expected(deps.config, challenge),
      // The counter is judged here (counterVerdict), after the signature, not by the library.
      credential: {
        id: passkey.credentialId,
        publicKey: Buffer.from(passkey.publicKey, "base64url"),
        counter: 0,
        transports: passkey.transports,
      },
    }),
  );
  return result?.verified ? result.authenticationInfo : null;
}
