/**
 * Where a request came from (a send, a token request), as far as the network tells: what the send
 * budgets and the token endpoint's throttle count. http/caller derives it from the request; no I/O here.
 */
export interface Caller {
  /** The client: an IPv4 address, or an IPv6 address's /64 (the block one subscriber is given). */
  client: string;
  /** The client's wider network: an IPv4 /24, an IPv6 /48. */
  network: string;
  /**
   * The wider network of whoever reached the platform's own front end, when that is not the
   * client: a CDN's edge, or a caller that went around the CDN straight to the function.
   */
  edge: string | null;
}
