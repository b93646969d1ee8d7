import type { Config, HandoffApp } from "../settings";
import type { Deps } from "../deps";
import { ensure } from "../errors";
import { issueExchangeCode } from "./exchange-codes";
import { redirectMatches } from "./handoff-redirects";
import { isS256Challenge } from "../pkce";

/**
 * The hand-off: a signed-in person's browser passes them to an app that cannot read the parent
 * domain's cookie (a native or desktop app, a site on another domain) by a single-use exchange
 * code, sent to a redirect URI the operator registered for that app. The app redeems it at
 * POST /auth/exchange with the PKCE verifier that only the app instance that asked holds, so a
 * code caught on its way (another app claiming the same scheme or port) is worth nothing.
 */
export interface HandoffRequest {
  app: HandoffApp;
  redirectUri: string;
  state: string | null;
  codeChallenge: string;
}

/** The app and where it asked to be answered, both as the operator registered them. */
export function findHandoffTarget(
  config: Pick<Config, "handoffApps">,
  appId: string,
  redirectUri: string,
): { app: HandoffApp; redirectUri: string } {
  const app = Object.hasOwn(config.handoffApps, appId) ? config.handoffApps[appId] : undefined;
  ensure(app, "handoff_unknown_app");
  ensure(
    app.redirectUris.some((registered) => redirectMatches(registered, redirectUri)),
    "handoff_redirect_not_registered",
  );
  return { app, redirectUri };
}

export function checkHandoff(
  config: Pick<Config, "handoffApps">,
  input: {
    app: string;
    redirectUri: string;
    state?: string | undefined;
    codeChallenge?: string | undefined;
    codeChallengeMethod?: string | undefined;
  },
): HandoffRequest {
  const target = findHandoffTarget(config, input.app, input.redirectUri);
  // Required of every app: a hand-off without PKCE would hand the person to whoever reads the URI.
  ensure(
    input.codeChallengeMethod === "S256" && input.codeChallenge !== undefined && isS256Challenge(input.codeChallenge),
    "handoff_pkce_required",
  );
  return { ...target, state: input.state ?? null, codeChallenge: input.codeChallenge };
}

/** Issues the code for this person and says where the browser goes with it. */
export async function handOff(
  deps: Pick<Deps, "store" | "clock" | "random">,
  request: HandoffRequest,
  person: { id: string },
  uid: string,
): Promise<string> {
  const code = await issueExchangeCode(deps, person.id, uid, {
    app: request.app.id,
    redirectUri: request.redirectUri,
    codeChallenge: request.codeChallenge,
  });
  return withParams(request.redirectUri, { code, state: request.state });
}

/** A redirect URI with parameters added to its query (private-use schemes included). */
export function withParams(uri: string, params: Record<string, string | null>): string {
  const url = new URL(uri);
  for (const [key, value] of Object.entries(params)) if (value !== null) url.searchParams.set(key, value);
  return url.toString();
}
