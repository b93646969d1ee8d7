/**
 * A subscription of one of the family's apps to the service's events (core/events), kept by the
 * operator (`npm run operator -- hooks …`). The store keeps it (store/hooks); no I/O here.
 */
import type { Sealed } from "./sealed";

/** A signing secret (Standard Webhooks' `whsec_…`), sealed; `expiresAt` set on one rotated out, still inside its overlap. */
export interface HookSecret {
  sealed: Sealed;
  createdAt: Date;
  expiresAt: Date | null;
}

export interface Hook {
  /** The app's name, the subscription's id. */
  app: string;
  /** Where deliveries are posted: https (or http on loopback, on the emulators only). */
  url: string;
  /** The event types it hears of; empty: every one. */
  events: string[];
  /** Newest first; every secret still in force signs each delivery. */
  secrets: HookSecret[];
  disabled: boolean;
  createdAt: Date;
  /** The endpoint's own health: deliveries failed in a row, and until when none is tried. */
  failures: number;
  pausedUntil: Date | null;
  /** The kind of the last failure (`timeout`, `status 503`, …), never a body. */
  lastError: string | null;
  lastSuccessAt: Date | null;
}
