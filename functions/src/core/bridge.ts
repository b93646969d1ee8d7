import { MINUTE } from "../clock";
import type { Config } from "../config";
import type { Deps } from "../deps";
import * as states from "../store/bridge-states";
import { AppError, ensure } from "./errors";
import { checkIdSetupUrl, openIdFields, verifyAssertion } from "./openid2";
import { resolvePerson } from "./resolve-person";
import { constantTimeEqual, sha256 } from "./secrets";

/** From start to callback: time to sign in at the provider, and no more. */
export const BRIDGE_STATE_LIFETIME_MS = 10 * MINUTE;

/**
 * How long the callback waits for the provider to confirm an assertion. Below the request
 * deadline (8 s), so a provider that hangs still gets the person a page of ours, not a 503.
 */
export const PROVIDER_TIMEOUT_MS = 5000;

interface ProviderRow {
  label: string;
  /** The provider's OpenID 2.0 endpoint under this configuration; null: people cannot sign in with it. */
  endpoint(config: Config): string | null;
}

/** Every bridge the contract registers; a disabled one is still known (503, not 404). */
const PROVIDERS: Record<string, ProviderRow> = {
  federated: { label: "Sign in with the identity provider", endpoint: () => null },
  gaming: { label: "Sign in with a gaming account", endpoint: (config) => config.gamingEndpoint },
  photo: { label: "Sign in with a photo account", endpoint: () => null },
};

export interface BridgeListing {
  id: string;
  label: string;
  start: string;
}

export function listBridges(config: Config): BridgeListing[] {
  return Object.entries(PROVIDERS)
    .filter(([, row]) => row.endpoint(config) !== null)
    .map(([id, row]) => ({ id, label: row.label, start: `/auth/bridge/${id}/start` }));
}

/** The endpoint of a known and enabled provider, or the contract's 404 / 503. */
function usable(config: Config, provider: string): string {
  const row = Object.hasOwn(PROVIDERS, provider) ? PROVIDERS[provider] : undefined;
  ensure(row, "bridge_unknown_provider");
  const endpoint = row.endpoint(config);
  ensure(endpoint !== null, "bridge_disabled");
  return endpoint;
}

/**
 * `redirect` must be an https address on one of the service's own hosts (the origins allowed to
 * call it), with the default port and no credentials: anything else could send a fresh sign-in
 * to someone else's page.
 */
export function allowedRedirect(config: Config, raw: string | undefined): string {
  if (raw === undefined) return `${config.idUrl}/account`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError("bridge_redirect_not_allowed");
  }
  const ok = url.protocol === "https:" && url.username === "" && url.password === "" && config.allowedOrigins.includes(url.origin) && raw.length <= 2048;
  ensure(ok, "bridge_redirect_not_allowed");
  return url.toString();
}

/** The provider sends the browser back here, state included, so the callback can match it to its cookie. */
function returnTo(config: Config, provider: string, state: string): string {
  return `${config.serviceUrl}/auth/bridge/${provider}/callback?state=${state}`;
}

type BridgeDeps = Pick<Deps, "config" | "store" | "clock" | "random" | "log" | "identity">;

export interface Started {
  /** Goes in the state cookie; its hash keys the stored state. */
  state: string;
  location: string;
}

/** GET /auth/bridge/:provider/start: remembers where to go afterwards, then sends the browser to the provider. */
export async function startBridge(deps: BridgeDeps, provider: string, input: { redirect: string | undefined }): Promise<Started> {
  const endpoint = usable(deps.config, provider);
  const redirect = allowedRedirect(deps.config, input.redirect);
  const state = deps.random.token(32);
  const now = deps.clock.now();
  await states.save(deps.store, { hash: sha256(state), provider, redirect, createdAt: now, expiresAt: new Date(now.getTime() + BRIDGE_STATE_LIFETIME_MS), usedAt: null });
  return { state, location: checkIdSetupUrl(endpoint, returnTo(deps.config, provider, state), `${deps.config.serviceUrl}/`) };
}

/**
 * Uses a state once: it must be one of those in this browser's cookie, stored for this provider,
 * unused and under ten minutes old. Decided in one transaction, so a callback replayed at the
 * same moment cannot use it twice.
 */
async function useState(deps: BridgeDeps, provider: string, fromQuery: unknown, fromCookie: string[]): Promise<states.BridgeState> {
  const presented = typeof fromQuery === "string" && fromQuery.length > 0 && fromQuery.length <= 128 ? fromQuery : null;
  // Every pending state is compared, in constant time, whichever matches.
  const ok = presented !== null && fromCookie.reduce((found, pending) => constantTimeEqual(presented, pending) || found, false);
  ensure(ok, "bridge_state_invalid");
  const hash = sha256(fromQuery as string);
  return deps.store.runTransaction(async (tx) => {
    const stored = await states.findByHash(deps.store, hash, tx);
    const now = deps.clock.now();
    ensure(stored && stored.provider === provider && stored.usedAt === null && now.getTime() < stored.expiresAt.getTime(), "bridge_state_invalid");
    states.markUsed(deps.store, tx, hash, now);
    return stored;
  });
}

/** A failure on our side of the sign-in: logged once, without secrets, and shown as the contract's 500. */
async function step<T>(deps: Pick<Deps, "log">, what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof AppError) throw err;
    deps.log.error(`bridge: ${what} failed`, { error: err instanceof Error ? err.message : String(err) });
    throw new AppError("bridge_failed");
  }
}

/**
 * GET /auth/bridge/:provider/callback: checks the state, has the provider confirm the
 * assertion, finds or creates the person (a new one is pending: a bridge never approves
 * anyone), and sends the browser to the identity host with a custom token.
 */
export async function completeBridge(deps: BridgeDeps, provider: string, query: Record<string, unknown>, cookieStates: string[]): Promise<string> {
  const endpoint = usable(deps.config, provider);
  const state = await useState(deps, provider, query.state, cookieStates);
  let account: string;
  try {
    account = await verifyAssertion(openIdFields(query), { endpoint, returnTo: returnTo(deps.config, provider, query.state as string), timeoutMs: PROVIDER_TIMEOUT_MS });
  } catch (err) {
    if (err instanceof AppError && err.code === "bridge_provider_failed") {
      deps.log.warn("bridge: the provider did not confirm in time or failed", { provider, error: err.cause instanceof Error ? err.cause.message : String(err.cause) });
    }
    throw err;
  }
  const uid = `${provider}:${account}`;
  await step(deps, "person", () => resolvePerson(deps, { uid, email: null, phone: null, name: null, provider }));
  const customToken = await step(deps, "custom token", () => deps.identity.createCustomToken(uid));
  const next = new URL(`${deps.config.idUrl}/`);
  next.searchParams.set("customToken", customToken);
  next.searchParams.set("redirect", state.redirect);
  return next.toString();
}
