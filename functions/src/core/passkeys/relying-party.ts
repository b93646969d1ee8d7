import type { Deps } from "../deps";
import type { Config } from "../settings";
import { errorText } from "../../logger";

/** COSE algorithm ids offered and accepted: ES256, EdDSA and RS256, what authenticators sign with today. */
export const ALGORITHMS = [-7, -8, -257];

/**
 * The relying party every ceremony names: the parent domain as RP ID, so one passkey works on
 * every host of the family, and the seven allowed origins as the only places a ceremony may run.
 */
export function relyingParty(config: Pick<Config, "parentDomain" | "allowedOrigins">) {
  return { id: config.parentDomain, name: config.parentDomain, origins: config.allowedOrigins };
}

/**
 * What every verification checks, as the library takes it: this challenge, one of the seven
 * origins, the parent domain's RP ID (its hash in the authenticator data), a verified user.
 */
export function expected(config: Pick<Config, "parentDomain" | "allowedOrigins">, challenge: string) {
  const rp = relyingParty(config);
  return {
    expectedChallenge: challenge,
    expectedOrigin: rp.origins,
    expectedRPID: rp.id,
    requireUserVerification: true,
  };
}

/**
 * A verification's result, or null when the library refuses what it was given (it throws). The
 * reason is logged: it names origins, flags and formats, never a secret.
 */
export async function unlessRefused<T>(
  deps: Pick<Deps, "log">,
  what: string,
  work: () => Promise<T>,
): Promise<T | null> {
  try {
    return await work();
  } catch (err) {
    deps.log.info(what, { reason: errorText(err) });
    return null;
  }
}
