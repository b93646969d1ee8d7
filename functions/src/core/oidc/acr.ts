/**
 * Authentication context classes (the ID token's `acr`, the request's `acr_values`): what a
 * relying party may ask a sign-in to have been. One class, from OpenID Connect Extended
 * Authentication Profile ACR Values 1.0: `phr`, phishing-resistant, which a passkey meets and an
 * email code or a bridge does not. Its hardware-bound sibling `phrh` is not offered: with
 * attestation `none`, whether a key lives in hardware is the authenticator's own word.
 */
import { byPasskey } from "../model/passkey-rule";

export const ACR = { phishingResistant: "phr" } as const;
export const ACR_VALUES_SUPPORTED = [ACR.phishingResistant];

/**
 * The class a request asks for: the first value of `acr_values` this provider knows, in the
 * request's order of preference; null when it asks for none it knows (acr_values is a voluntary
 * request, OpenID Connect Core §3.1.2.1: an unknown value is passed over, not refused).
 */
export function requestedAcr(acrValues: string | undefined): string | null {
  const asked = (acrValues ?? "").split(" ").filter((v) => v !== "");
  return asked.find((v) => (ACR_VALUES_SUPPORTED as readonly string[]).includes(v)) ?? null;
}

/** Whether a sign-in's methods (RFC 8176) meet the class: `phr` takes a passkey's key, in hardware or synced. */
export function meetsAcr(amr: readonly string[], acr: string): boolean {
  return acr === ACR.phishingResistant && byPasskey(amr);
}
