import { translateFailure } from "../failures";
import { PERSON_RESERVE_MS, PROVIDER_TIMEOUT_MS, providerSide, type Protocol } from "./protocol";
import { checkIdSetupUrl, openIdFields, verifyAssertion } from "./openid2";

/** The provider sends the browser back here with the state, so the callback can match it to its cookie. */
function returnTo(callback: string, state: string): string {
  return `${callback}?state=${state}`;
}

/**
 * `gaming`: OpenID 2.0 with direct verification. The account is `gaming:<account number>` at the
 * identity provider, created by the custom token the callback issues.
 */
export const gamingProtocol: Protocol = {
  available: (config) => config.gamingEndpoint !== null,

  async begin(deps, { state, callback }) {
    const endpoint = deps.config.gamingEndpoint as string;
    // The realm is the origin the person comes back to, which the provider shows them.
    const realm = `${new URL(callback).origin}/`;
    return {
      location: checkIdSetupUrl(endpoint, returnTo(callback, state), realm),
      extra: { idp: null, codeVerifier: null, nonce: null },
    };
  },

  async finish(deps, query, state, budget) {
    const endpoint = deps.config.gamingEndpoint as string;
    const fields = openIdFields(query);
    // Its own 5 s at most, less when the state took long: the person and their token still need time.
    const timeoutMs = budget.take(PERSON_RESERVE_MS, PROVIDER_TIMEOUT_MS);
    const account = await translateFailure(deps, { ...providerSide("gaming"), deadlineMs: timeoutMs }, () =>
      verifyAssertion(fields, {
        endpoint,
        returnTo: returnTo(state.callback, query.state as string),
        timeoutMs,
        fetch: deps.fetch,
      }),
    );
    return { uid: `gaming:${account}`, email: null, phone: null, name: null, provider: "gaming", account };
  },
};
