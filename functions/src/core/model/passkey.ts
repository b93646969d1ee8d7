/**
 * A person's passkey, as the domain knows it: the public half of a key their authenticator holds.
 * The store keeps it (store/passkeys); no I/O here.
 */

export interface Passkey {
  id: string;
  personId: string;
  /** The account that registered it: the one a sign-in with it mints its custom token for. */
  uid: string;
  /** As WebAuthn names it, base64url. */
  credentialId: string;
  /** The COSE public key, base64url. Public: it proves nothing without the authenticator's private key. */
  publicKey: string;
  /** The authenticator's signature counter at its last use; 0 for authenticators that keep none. */
  counter: number;
  transports: string[];
  /** The authenticator's model, as it said at registration (all zeros when it would not say). */
  aaguid: string;
  /** Backup eligible (the BE flag): the key may be synced beyond the device (a synced passkey). */
  backupEligible: boolean;
  /** Backed up (the BS flag) at its last use. */
  backedUp: boolean;
  name: string;
  /**
   * The address the session that added it came in through: a code to it, or a passkey or a
   * recovery code that itself came through it (core/passkeys/rules `addressBehind`). Taking the
   * address off the person takes the passkey with it. null for any other way in.
   */
  address: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  /** When its counter went backwards (a cloned authenticator): never accepted again. */
  suspectAt: Date | null;
}

/** A WebAuthn challenge the service handed out (store/passkey-challenges), kept by its hash. */
export type ChallengePurpose = "register" | "sign-in";

export interface PasskeyChallenge {
  hash: string;
  purpose: ChallengePurpose;
  /** Registration: the person and the session (its key) that asked; null for a sign-in. */
  personId: string | null;
  sessionKey: string | null;
  /** Sign-in: sha256 of the browser's binding cookie; null for a registration. */
  binding: string | null;
  createdAt: Date;
  expiresAt: Date;
  usedAt: Date | null;
}
