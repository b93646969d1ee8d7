/**
 * A value sealed at rest: AES-256-GCM under a key derived from CODE_PEPPER's key `kid`
 * (core/seal), as the outbox keeps a mail and a subscription keeps its signing secret.
 * No I/O here.
 */
export interface Sealed {
  kid: string;
  /** base64url: the nonce, the ciphertext and the authentication tag of AES-256-GCM. */
  iv: string;
  data: string;
  tag: string;
}
