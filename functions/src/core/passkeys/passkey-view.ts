/**
 * A passkey as its owner (GET /auth/passkeys) and the administrators
 * (GET /auth/people/:personId/passkeys) see it; the public key and counter stay inside. A type of
 * its own with nothing imported, so the identity host's pages take it from here.
 */
export interface PasskeyView {
  id: string;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
  /** Backup eligible: a synced passkey, held by a passkey manager across devices. */
  synced: boolean;
  /** Refused since its signature counter went back (a cloned authenticator). */
  suspect: boolean;
}
