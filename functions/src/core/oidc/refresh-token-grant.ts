/**
 * The token endpoint's refresh_token grant (RFC 6749 §6): only a client the operator registered
 * for refresh tokens may trade one (OidcClient `refreshTokens`); the refresh itself, and what
 * ends a grant, is core/oidc/refresh.
 */
import type { Deps } from "../deps";
import { ensure } from "../errors";
import type { OidcClient } from "../model/oidc-client";
import { refreshGrant } from "./refresh";
import type { TokenResponse } from "./token";

export const refreshTokenGrant = {
  allows: (client: Pick<OidcClient, "refreshTokens">): boolean => client.refreshTokens,
  registers: { refreshTokens: true },
  exchanger(deps: Pick<Deps, "store" | "clock" | "random" | "pepper" | "transaction" | "tokens" | "config">) {
    return async (client: OidcClient, form: Record<string, string>): Promise<TokenResponse> => {
      ensure(form.refresh_token, "oauth_invalid_request", "refresh_token is required");
      const { refresh_token: refreshToken, scope, resource } = form;
      return refreshGrant(deps, { client, refreshToken, scope: scope ?? null, resource: resource ?? null });
    };
  },
};
