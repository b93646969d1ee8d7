/**
 * A sign-in through a bridge in flight: the state handed to the provider (kept by its hash) and
 * what the callback needs to finish it. Stored by store/bridge-states; no I/O here.
 */
export interface BridgeState {
  hash: string;
  provider: string;
  /** Where the browser goes once signed in; checked against the service's own hosts at start. */
  redirect: string;
  /** Where the provider sends the browser back to: this sign-in's callback address. */
  callback: string;
  createdAt: Date;
  expiresAt: Date;
  usedAt: Date | null;
  /** The `federated` bridge's provider selector; null on other bridges. */
  idp: string | null;
  /**
   * The PKCE verifier and nonce of an OpenID Connect sign-in (null on other bridges). The
   * verifier has to be sent as it is, so it cannot be hashed; it is erased when the state is
   * used, and is worth nothing without the authorization code and our client secret.
   */
  codeVerifier: string | null;
  nonce: string | null;
  /**
   * The name a provider answering by form_post sent beside its answer (a device maker's `user`
   * field, on an account's first sign-in only, and in no token), kept for the person it makes.
   */
  postedName: string | null;
}
