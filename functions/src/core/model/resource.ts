/**
 * A resource of the family (RFC 8707): a site or API the operator registered, by its URL, for
 * which the OpenID Connect provider issues access tokens meant for it alone (their audience),
 * with the scopes it defines. No I/O here; the store keeps it (store/oidc-resources).
 */
export interface Resource {
  /** Its identifier, as clients send it in `resource` and as the tokens' `aud` names it. */
  url: string;
  /** What the person is told it is. */
  name: string;
  /** The scopes a token for it may carry, beside the provider's own (core/oidc/scopes). */
  scopes: string[];
  /** The clients that may ask for a token for it: no other is given one (but see `agents`). */
  clients: string[];
  /**
   * Open to agents: every client that registered itself (RFC 7591) and may be used may ask for a
   * token for it too, each person's consent on its page deciding (core/oidc/consents). The
   * operator's own clients only ever by `clients`.
   */
  agents: boolean;
  /** The project a person must hold for a token for it (as a client's project gates its sign-ins); null: none. */
  project: string | null;
  createdAt: Date;
}
