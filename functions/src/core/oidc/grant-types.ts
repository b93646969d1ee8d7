/**
 * The token endpoint's grant types (RFC 6749 §4.1.3, §6), one module each, dispatched by this
 * table on the request's `grant_type`. A client may use those it is registered for (grantTypesOf);
 * any other grant type, from it, is one the endpoint does not take. A client is registered for
 * grant types of the table alone (registeredFor). The discovery document lists the table's
 * (core/oidc/discovery).
 */
import type { Deps } from "../deps";
import { AppError, ensure } from "../errors";
import type { OidcClient } from "../model/oidc-client";
import { authorizationCodeGrant } from "./authorization-code-grant";
import { refreshTokenGrant } from "./refresh-token-grant";
import type { TokenResponse } from "./token";

/** What a client's registration says of the grant types it may use. */
type Registered = Pick<OidcClient, "refreshTokens">;

/** A token request's form, from a client it has authenticated, answered with tokens (or refused). */
export type Exchange = (client: OidcClient, form: Record<string, string>) => Promise<TokenResponse>;

type TokenDeps = Pick<
  Deps,
  "store" | "clock" | "random" | "tokens" | "config" | "personCache" | "transaction" | "pepper"
>;

export interface GrantType {
  /** Whether the client, as registered, may use it. */
  allows(client: Registered): boolean;
  /** What registering a client for it sets on the client. */
  registers: Partial<Registered>;
  /** Its exchange, built once around the dependencies. */
  exchanger(deps: TokenDeps): Exchange;
}

export const GRANT_TYPES = {
  authorization_code: authorizationCodeGrant,
  refresh_token: refreshTokenGrant,
} as const satisfies Record<string, GrantType>;

export type GrantTypeName = keyof typeof GRANT_TYPES;

/** Every grant type the token endpoint takes, in the table's order. */
export const GRANT_TYPE_NAMES = Object.keys(GRANT_TYPES) as GrantTypeName[];

/** The grant types the client may use, as registered. */
export function grantTypesOf(client: Registered): GrantTypeName[] {
  return GRANT_TYPE_NAMES.filter((name) => GRANT_TYPES[name].allows(client));
}

const listed = (names: string[]) => `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;

/**
 * The token endpoint's exchange, built once around the dependencies: the request's `grant_type`
 * must be one the client may use, and that grant type's module checks the rest of the form.
 */
export function tokenExchange(deps: TokenDeps): Exchange {
  const exchanges = Object.fromEntries(
    GRANT_TYPE_NAMES.map((name) => [name, (GRANT_TYPES[name] as GrantType).exchanger(deps)]),
  ) as Record<GrantTypeName, Exchange>;
  return async (client, form) => {
    ensure(form.grant_type, "oauth_invalid_request", "grant_type is required");
    const allowed = grantTypesOf(client);
    const type = allowed.find((name) => name === form.grant_type);
    ensure(
      type,
      "oauth_unsupported_grant_type",
      allowed.length > 1 ? `Only grant_type ${listed(allowed)} are supported` : undefined,
    );
    return exchanges[type](client, form);
  };
}

/**
 * What registering a client for `grantTypes` (RFC 7591's `grant_types`) sets on it, checked when
 * the client is registered: one the table lacks is refused, naming it, rather than kept as a
 * grant type the client can never use. authorization_code is every client's, named or not.
 */
export function registeredFor(grantTypes: readonly string[]): Registered {
  const registered: Registered = { refreshTokens: false };
  for (const name of grantTypes) {
    // Own keys only: "toString" is no grant type.
    if (!Object.hasOwn(GRANT_TYPES, name))
      throw new AppError(
        "client_grant_type_unknown",
        `The token endpoint takes no grant type "${name}": it takes ${listed(GRANT_TYPE_NAMES)}`,
      );
    Object.assign(registered, (GRANT_TYPES[name as GrantTypeName] as GrantType).registers);
  }
  return registered;
}
