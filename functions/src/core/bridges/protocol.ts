import type { Config } from "../settings";
import type { Deps } from "../deps";
import type { SignIn } from "../ports";
import type { BridgeState } from "../model/bridge-state";
import type { Failure } from "../failures";
import type { Budget } from "../deadline";

export type BridgeDeps = Pick<
  Deps,
  "config" | "store" | "transaction" | "fetch" | "clock" | "random" | "log" | "identity" | "mailQueue"
>;

/**
 * How long the callback waits for the provider to confirm a sign-in, at most. Below the request
 * deadline (8 s), so a provider that hangs still gets the person a page of ours, not a 503; and
 * less when the store was slow before it: the callback's steps share what is left of the request's
 * deadline (core/deadline Budget), each keeping back what the steps after it need.
 */
export const PROVIDER_TIMEOUT_MS = 5000;

/** Kept back, after the provider, for finding or making the person and their custom token. */
export const PERSON_RESERVE_MS = 1500;

/** Kept back, while the state is read and used, for the provider and the person after it. */
export const STATE_RESERVE_MS = 2500;

/** How one bridge sends a browser to its provider and reads what the provider sends back. */
export interface Protocol {
  /** false: not configured here, so people cannot sign in with it. */
  available(config: Config): boolean;
  /**
   * Where the browser goes; `extra` is stored with the state for the callback. `callback`: where
   * the provider sends the browser back to (see callbackBase).
   */
  begin(
    deps: BridgeDeps,
    input: { state: string; idp: string | undefined; callback: string },
  ): Promise<{ location: string; extra: Pick<BridgeState, "idp" | "codeVerifier" | "nonce"> }>;
  /**
   * The sign-in the provider confirms for this callback, whose state has just been used: asked
   * within `budget`, keeping back PERSON_RESERVE_MS for what follows.
   */
  finish(deps: BridgeDeps, query: Record<string, unknown>, state: BridgeState, budget: Budget): Promise<SignIn>;
}

/**
 * The origin a sign-in comes back to: the host it was started on, when that is the identity host
 * or the service's own host; the service's otherwise. The state cookie lives on the parent
 * domain, so the callback must be reached on a host that receives it: the identity host's page
 * starts bridges on its own host, while a script may start one at the service's address.
 */
export function callbackBase(config: Pick<Config, "idUrl" | "serviceUrl">, startedOn: string | undefined): string {
  return startedOn !== undefined && startedOn === new URL(config.idUrl).host
    ? new URL(config.idUrl).origin
    : config.serviceUrl;
}

/** Where a provider sends the browser back to. */
export function callbackUrl(base: string, provider: string): string {
  return `${base}/auth/bridge/${provider}/callback`;
}

/** A failure on our side of the sign-in: logged once, without secrets, and shown as the contract's 500. */
export function ourSide(what: string): Failure {
  return { code: "bridge_failed", log: `bridge: ${what} failed` };
}

/** A failure of the provider (an error answer, or none in time): logged, and the contract's 500. */
export function providerSide(provider: string): Failure {
  return {
    code: "bridge_provider_failed",
    log: "bridge: the provider did not answer in time or failed",
    level: "warn",
    fields: { provider },
  };
}
