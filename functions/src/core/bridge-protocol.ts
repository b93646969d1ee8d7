import type { Config } from "../config";
import type { Deps } from "../deps";
import type { SignIn } from "../identity";
import type { BridgeState } from "../store/bridge-states";
import { AppError } from "./errors";

export type BridgeDeps = Pick<Deps, "config" | "store" | "clock" | "random" | "log" | "identity">;

/**
 * How long the callback waits for the provider to confirm a sign-in. Below the request deadline
 * (8 s), so a provider that hangs still gets the person a page of ours, not a 503.
 */
export const PROVIDER_TIMEOUT_MS = 5000;

/** How one bridge sends a browser to its provider and reads what the provider sends back. */
export interface Protocol {
  /** false: not configured here, so people cannot sign in with it. */
  available(config: Config): boolean;
  /** Where the browser goes; `extra` is stored with the state for the callback. */
  begin(deps: BridgeDeps, input: { state: string; idp: string | undefined }): Promise<{ location: string; extra: Pick<BridgeState, "idp" | "codeVerifier" | "nonce"> }>;
  /** The sign-in the provider confirms for this callback, whose state has just been used. */
  finish(deps: BridgeDeps, query: Record<string, unknown>, state: BridgeState): Promise<SignIn>;
}

/** Where a provider sends the browser back to. */
export function callbackUrl(config: Config, provider: string): string {
  return `${config.serviceUrl}/auth/bridge/${provider}/callback`;
}

/** A failure on our side of the sign-in: logged once, without secrets, and shown as the contract's 500. */
export async function step<T>(deps: Pick<Deps, "log">, what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof AppError) throw err;
    deps.log.error(`bridge: ${what} failed`, { error: err instanceof Error ? err.message : String(err) });
    throw new AppError("bridge_failed");
  }
}

/** A failure of the provider (an error answer, or none in time): logged, and the contract's 500. */
export async function atProvider<T>(deps: Pick<Deps, "log">, provider: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof AppError) throw err;
    deps.log.warn("bridge: the provider did not answer in time or failed", { provider, error: err instanceof Error ? err.message : String(err) });
    throw new AppError("bridge_provider_failed", undefined, err);
  }
}
