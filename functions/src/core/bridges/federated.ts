import { FEDERATED_IDPS, type FederatedIdp, type FederatedProvider } from "../settings";
import { translateFailure } from "../failures";
import {
  ourSide,
  PERSON_RESERVE_MS,
  providerSide,
  type BridgeDeps,
  PROVIDER_TIMEOUT_MS,
  type Protocol,
} from "./protocol";
import { withDeadline } from "../deadline";
import { AppError, ensure } from "../errors";
import { authorizationUrl, discover, ensureIssuer, redeemCode, checkIdToken } from "./oidc-relying-party";

/**
 * How long the sign-in at the identity provider may take, after the provider: at most this, and
 * less when the steps before took long (core/deadline Budget), so a slow answer still gets a page
 * of ours before the request deadline.
 */
const IDENTITY_TIMEOUT_MS = 2500;

/** Kept back for the sign-in at the identity provider while the provider is asked: it gets the rest. */
const IDENTITY_RESERVE_MS = 1000;

/** The provider behind the identity provider that `idp` selects, when this deployment has it. */
function selected(
  deps: BridgeDeps,
  idp: string | null | undefined,
): { idp: FederatedIdp; provider: FederatedProvider } {
  const known =
    typeof idp === "string" && (FEDERATED_IDPS as readonly string[]).includes(idp) ? (idp as FederatedIdp) : null;
  const provider = known === null ? undefined : deps.config.federated?.providers[known];
  ensure(known !== null && provider !== undefined, "bridge_idp_invalid");
  return { idp: known, provider };
}

/** A single query parameter, or nothing: a repeated or odd one is no answer from the provider. */
function param(query: Record<string, unknown>, name: string): string | null {
  const value = query[name];
  return typeof value === "string" && value.length > 0 && value.length <= 4096 ? value : null;
}

/**
 * `federated`: the identity provider and the providers behind it. The browser goes straight to
 * the provider `idp` selects (authorization code with PKCE, and a nonce on OpenID Connect); the
 * callback redeems the code, checks the ID token (or takes the access token of a plain OAuth 2.0
 * provider), and signs in with it at the identity provider, which finds or creates the account
 * linked to that provider account: the same account the identity host's own "sign in with …"
 * button would reach.
 */
export const federatedProtocol: Protocol = {
  available: (config) => config.federated !== null,

  async begin(deps, input) {
    const { idp, provider } = selected(deps, input.idp);
    const meta = await translateFailure(deps, providerSide(`federated/${idp}`), () =>
      discover(deps.fetch, provider, PROVIDER_TIMEOUT_MS),
    );
    const codeVerifier = deps.random.token(32);
    const nonce = deps.random.token(16);
    const location = authorizationUrl(meta, provider, {
      redirectUri: input.callback,
      state: input.state,
      nonce,
      codeVerifier,
    });
    return { location, extra: { idp, codeVerifier, nonce } };
  },

  async finish(deps, query, state, budget) {
    const { idp, provider } = selected(deps, state.idp);
    // The person cancelled or the provider refused (RFC 6749 §4.1.2.1).
    if (param(query, "error") !== null) throw new AppError("bridge_not_confirmed");
    const code = param(query, "code");
    ensure(code !== null && state.codeVerifier !== null && state.nonce !== null, "bridge_not_confirmed");
    // The same redirect_uri as at the start, as the token endpoint requires (RFC 6749 §4.1.3).
    const redirectUri = state.callback;
    // One deadline for everything the provider is asked: discovery, the code, its keys; with the
    // sign-in at the identity provider and the person still to come after it.
    const providerMs = budget.take(PERSON_RESERVE_MS + IDENTITY_RESERVE_MS, PROVIDER_TIMEOUT_MS);
    const signal = AbortSignal.timeout(providerMs);
    const credential = await translateFailure(deps, providerSide(`federated/${idp}`), () =>
      withDeadline(
        (async () => {
          const meta = await discover(deps.fetch, provider, providerMs);
          ensureIssuer(meta, query.iss);
          const token = await redeemCode(deps.fetch, meta, provider, {
            code,
            redirectUri,
            codeVerifier: state.codeVerifier as string,
            signal,
          });
          if ("idToken" in token)
            await checkIdToken(deps.fetch, meta, provider, token.idToken, {
              nonce: state.nonce as string,
              now: deps.clock.now(),
              timeoutMs: providerMs,
            });
          return token;
        })(),
        providerMs,
      ),
    );
    const apiKey = (deps.config.federated as { apiKey: string }).apiKey;
    // An OAuth 2.0 provider's access token is checked by the identity provider, which asks the provider for the account.
    const identityMs = budget.take(PERSON_RESERVE_MS, IDENTITY_TIMEOUT_MS);
    return translateFailure(deps, { ...ourSide("sign-in at the identity provider"), deadlineMs: identityMs }, () =>
      deps.identity.signInWithProvider({
        apiKey,
        providerId: provider.providerId,
        credential,
        requestUri: redirectUri,
        signal: AbortSignal.timeout(identityMs),
      }),
    );
  },
};
