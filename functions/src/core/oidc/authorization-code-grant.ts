/**
 * The token endpoint's authorization_code grant (RFC 6749 §4.1.3): every client's, for signing a
 * person in is what a client is for. The code, the redirect URI it was issued for and its PKCE
 * verifier (RFC 7636 §4.5) are required; a client the operator registered with PKCE optional may
 * leave the verifier out, and one that is sent is checked whatever the policy. `resource`, when
 * sent, must be the sign-in's (core/oidc/resources). Redeemed by core/oidc/token.
 */
import type { Deps } from "../deps";
import { ensure } from "../errors";
import type { OidcClient } from "../model/oidc-client";
import { isCodeVerifier } from "../pkce";
import { authorizationCodeRedeemer, type TokenResponse } from "./token";

export const authorizationCodeGrant = {
  allows: (): boolean => true,
  registers: {},
  exchanger(
    deps: Pick<Deps, "store" | "clock" | "random" | "tokens" | "config" | "personCache" | "transaction" | "pepper">,
  ) {
    // Built once: concurrent redemptions on an instance share a transaction (core/oidc/token).
    const redeem = authorizationCodeRedeemer(deps);
    return async (client: OidcClient, form: Record<string, string>): Promise<TokenResponse> => {
      const { code, redirect_uri: redirectUri, code_verifier: codeVerifier } = form;
      ensure(
        code && redirectUri && (codeVerifier !== undefined || client.pkce === "optional"),
        "oauth_invalid_request",
        "code, redirect_uri and code_verifier are required",
      );
      ensure(
        codeVerifier === undefined || isCodeVerifier(codeVerifier),
        "oauth_invalid_request",
        "code_verifier must be 43 to 128 unreserved characters",
      );
      // `resource` (RFC 8707 §2.2), when sent, must be the one the sign-in asked for.
      return redeem({ client, code, redirectUri, codeVerifier: codeVerifier ?? null, resource: form.resource ?? null });
    };
  },
};
