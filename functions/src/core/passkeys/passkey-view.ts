/**
 * A passkey as its owner (GET /auth/passkeys) and the administrators
 * (GET /auth/people/:personId/passkeys) see it, and its mapper; the public key and counter stay
 * inside. Built from the domain's record (core/model), which imports nothing, so the identity
 * host's pages take it from here.
 */
import type { Passkey } from "../model/passkey";

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

/** A passkey as its owner (and an administrator) sees it. */
export function passkeyView(passkey: Passkey): PasskeyView {
  return {
    id: passkey.id,
    name: passkey.name,
    createdAt: passkey.createdAt.toISOString(),
    lastUsedAt: passkey.lastUsedAt?.toISOString() ?? null,
    synced: passkey.backupEligible,
    suspect: passkey.suspectAt !== null,
  };
}

/**
 * How the passkey rule stands for the session asking (GET /auth/passkeys `rule`), for the pages
 * to say what to do: whether it holds the person's role, whether this session acts in it, until
 * when the operator lifted it, whether this session may add a passkey (a sign-in within the last
 * 5 minutes still asked), and until when a first one may be added after an email code.
 */
export interface RuleView {
  holds: boolean;
  acts: boolean;
  liftedUntil: string | null;
  mayAdd: boolean;
  enrolBy: string | null;
}
