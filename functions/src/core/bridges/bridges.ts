import { MINUTE } from "../../clock";
import type { Config } from "../settings";
import * as states from "../../store/bridge-states";
import type { BridgeState } from "../model/bridge-state";
import { AppError, ensure } from "../errors";
import { translateFailure } from "../failures";
import { type BridgeDeps, callbackBase, callbackUrl, ourSide, type Protocol, STATE_RESERVE_MS } from "./protocol";
import type { Budget } from "../deadline";
import { federatedProtocol } from "./federated";
import { gamingProtocol } from "./gaming";
import { resolvePerson } from "../arrival/resolve-person";
import { AMR } from "../sessions/amr";
import { constantTimeEqual, sha256 } from "../secrets";
import { cleanText, truncate } from "../text";

/** From start to callback: time to sign in at the provider, and no more. */
export const BRIDGE_STATE_LIFETIME_MS = 10 * MINUTE;

interface ProviderRow {
  label: string;
  protocol: Protocol | null;
}

/** Every bridge the contract registers; a disabled one is still known (503, not 404). */
const PROVIDERS: Record<string, ProviderRow> = {
  federated: { label: "Sign in with the identity provider", protocol: federatedProtocol },
  gaming: { label: "Sign in with a gaming account", protocol: gamingProtocol },
  photo: { label: "Sign in with a photo account", protocol: null },
};

export interface BridgeListing {
  id: string;
  label: string;
  start: string;
  /** On `federated`: the `idp` values this deployment configures, so a page shows only buttons that work. */
  idps?: string[];
}

export function listBridges(config: Config): BridgeListing[] {
  return Object.entries(PROVIDERS)
    .filter(([, row]) => row.protocol?.available(config) === true)
    .map(([id, row]) => ({
      id,
      label: row.label,
      start: `/auth/bridge/${id}/start`,
      ...(id === "federated" ? { idps: Object.keys(config.federated?.providers ?? {}) } : {}),
    }));
}

/** The protocol of a known and enabled provider, or the contract's 404 / 503. */
function usable(config: Config, provider: string): Protocol {
  const row = Object.hasOwn(PROVIDERS, provider) ? PROVIDERS[provider] : undefined;
  ensure(row, "bridge_unknown_provider");
  ensure(row.protocol !== null && row.protocol.available(config), "bridge_disabled");
  return row.protocol;
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
  const ok =
    url.protocol === "https:" &&
    url.username === "" &&
    url.password === "" &&
    config.allowedOrigins.includes(url.origin) &&
    raw.length <= 2048;
  ensure(ok, "bridge_redirect_not_allowed");
  return url.toString();
}

export interface Started {
  /** Goes in the state cookie; its hash keys the stored state. */
  state: string;
  location: string;
}

/** GET /auth/bridge/:provider/start: remembers where to go afterwards, then sends the browser to the provider. */
export async function startBridge(
  deps: BridgeDeps,
  provider: string,
  input: { redirect: string | undefined; idp: string | undefined; startedOn: string | undefined },
): Promise<Started> {
  const protocol = usable(deps.config, provider);
  const redirect = allowedRedirect(deps.config, input.redirect);
  const state = deps.random.token(32);
  const callback = callbackUrl(callbackBase(deps.config, input.startedOn), provider);
  const { location, extra } = await protocol.begin(deps, { state, idp: input.idp, callback });
  const now = deps.clock.now();
  await states.save(deps.store, {
    hash: sha256(state),
    provider,
    redirect,
    callback,
    createdAt: now,
    expiresAt: new Date(now.getTime() + BRIDGE_STATE_LIFETIME_MS),
    usedAt: null,
    ...extra,
    postedName: null,
  });
  return { state, location };
}

/**
 * Uses a state once: it must be one of those in this browser's cookie, stored for this provider,
 * unused and under ten minutes old. Decided in one transaction, so a callback replayed at the
 * same moment cannot use it twice.
 */
async function useState(
  deps: BridgeDeps,
  provider: string,
  fromQuery: unknown,
  fromCookie: string[],
): Promise<BridgeState> {
  const presented = typeof fromQuery === "string" && fromQuery.length > 0 && fromQuery.length <= 128 ? fromQuery : null;
  // Every pending state is compared, in constant time, whichever matches.
  const ok =
    presented !== null && fromCookie.reduce((found, pending) => constantTimeEqual(presented, pending) || found, false);
  ensure(ok, "bridge_state_invalid");
  const hash = sha256(fromQuery as string);
  return deps.transaction(async (tx) => {
    const stored = await states.findByHash(deps.store, hash, tx);
    const now = deps.clock.now();
    ensure(
      stored && stored.provider === provider && stored.usedAt === null && now.getTime() < stored.expiresAt.getTime(),
      "bridge_state_invalid",
    );
    states.markUsed(deps.store, tx, hash, now);
    return stored;
  });
}

/** The longest name kept from a form_post answer, in characters. */
const POSTED_NAME_MAX = 100;

/**
 * The name in a form_post answer's `user` field (`{"name":{"firstName","lastName"},...}`), or
 * null. Nothing signs that field, so it is only ever a new person's display name, never an
 * address: text only, control and format characters dropped, spaces collapsed, capped.
 */
export function postedName(user: unknown): string | null {
  if (typeof user !== "string" || user.length > 4096) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(user);
  } catch {
    return null;
  }
  const name = (parsed as { name?: unknown } | null)?.name;
  if (typeof name !== "object" || name === null) return null;
  const part = (value: unknown) => (typeof value === "string" ? value : "");
  const { firstName, lastName } = name as { firstName?: unknown; lastName?: unknown };
  const text = cleanText(`${part(firstName)} ${part(lastName)}`);
  return text === "" ? null : truncate(text, POSTED_NAME_MAX);
}

/**
 * POST /auth/bridge/:provider/callback (a provider answering by form_post): the state must be
 * one stored for this provider, unused and unexpired, or the answer is refused here as the GET
 * would refuse it. Nothing is used up: the GET it is passed on to uses the state, once, in its
 * transaction, and only with the browser's cookie. A name the answer carries (see postedName) is
 * kept with the state, for the person the GET may make.
 */
export async function ensurePendingState(
  deps: BridgeDeps,
  provider: string,
  presented: unknown,
  user: unknown,
  budget: Budget,
): Promise<void> {
  usable(deps.config, provider);
  const ok = typeof presented === "string" && presented.length > 0 && presented.length <= 128;
  ensure(ok, "bridge_state_invalid");
  const hash = sha256(presented);
  const name = postedName(user);
  // A slow store ends in a page of ours, before the request's deadline.
  await translateFailure(deps, { ...ourSide("state"), deadlineMs: budget.take() }, () =>
    deps.transaction(async (tx) => {
      const stored = await states.findByHash(deps.store, hash, tx);
      ensure(
        stored &&
          stored.provider === provider &&
          stored.usedAt === null &&
          deps.clock.now().getTime() < stored.expiresAt.getTime(),
        "bridge_state_invalid",
      );
      if (name !== null) states.keepPostedName(deps.store, tx, hash, name);
    }),
  );
}

/**
 * GET /auth/bridge/:provider/callback: checks the state, has the provider confirm the
 * assertion, finds or creates the person (a new one is pending: a bridge never approves
 * anyone), and sends the browser to the identity host with a custom token.
 */
export async function completeBridge(
  deps: BridgeDeps,
  provider: string,
  query: Record<string, unknown>,
  cookieStates: string[],
  from: string,
  budget: Budget,
): Promise<string> {
  const protocol = usable(deps.config, provider);
  // Every step that leaves the process shares what is left of the request's deadline, so a slow
  // store or provider ends in a page of ours (500), never the deadline's 503.
  const state = await translateFailure(deps, { ...ourSide("state"), deadlineMs: budget.take(STATE_RESERVE_MS) }, () =>
    useState(deps, provider, query.state, cookieStates),
  );
  const signIn = await protocol.finish(deps, query, state, budget);
  // A name the provider signed comes first; one it only posted, for a new person only.
  const named = { ...signIn, name: signIn.name ?? state.postedName };
  await translateFailure(deps, { ...ourSide("person"), deadlineMs: budget.take() }, () =>
    resolvePerson(deps, named, provider, from),
  );
  const customToken = await translateFailure(deps, { ...ourSide("custom token"), deadlineMs: budget.take() }, () =>
    deps.identity.createCustomToken(signIn.uid, [AMR.federated]),
  );
  const next = new URL(`${deps.config.idUrl}/`);
  next.searchParams.set("customToken", customToken);
  next.searchParams.set("redirect", state.redirect);
  return next.toString();
}
