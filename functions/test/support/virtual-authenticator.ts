/**
 * Chromium's virtual authenticator (the DevTools protocol's WebAuthn domain) on one page: a
 * platform authenticator (CTAP2, internal transport) that keeps discoverable credentials and
 * verifies its user, answering every ceremony at once, as a person touching their sensor would.
 * It serves the page it was added to, across that page's navigations.
 *
 * In this virtual environment a conditional request (passkeys offered in a field's autofill) is
 * answered at once with the first passkey, as if the person had picked it from the list; with
 * the environment on and no authenticator, the browser offers no autofill at all.
 */
import type { Page } from "playwright-core";
import type { SoftwarePasskey } from "./authenticator";

/** A credential as the protocol carries it: ids, keys and handles in base64. */
export interface Credential {
  credentialId: string;
  isResidentCredential: boolean;
  rpId?: string;
  privateKey: string;
  userHandle?: string;
  signCount: number;
}

export interface VirtualAuthenticator {
  credentials(): Promise<Credential[]>;
  /** Takes the authenticator away; the page stays in the virtual environment, with none. */
  remove(): Promise<void>;
}

const OPTIONS = {
  protocol: "ctap2",
  transport: "internal",
  hasResidentKey: true,
  hasUserVerification: true,
  isUserVerified: true,
  automaticPresenceSimulation: true,
} as const;

/** A passkey the software authenticator made (and a test registered through HTTP), for the virtual one. */
export function credentialOf(passkey: SoftwarePasskey): Credential {
  return {
    credentialId: passkey.credentialId.toString("base64"),
    isResidentCredential: true,
    rpId: passkey.rpId,
    privateKey: passkey.privateKey.export({ format: "der", type: "pkcs8" }).toString("base64"),
    userHandle: Buffer.from(passkey.userHandle, "base64url").toString("base64"),
    signCount: passkey.counter,
  };
}

/** Puts the page in the virtual environment with an authenticator holding `credentials`. */
export async function virtualAuthenticator(page: Page, credentials: Credential[] = []): Promise<VirtualAuthenticator> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", { options: OPTIONS });
  for (const credential of credentials) await cdp.send("WebAuthn.addCredential", { authenticatorId, credential });
  return {
    credentials: async () => (await cdp.send("WebAuthn.getCredentials", { authenticatorId })).credentials,
    remove: async () => {
      await cdp.send("WebAuthn.removeVirtualAuthenticator", { authenticatorId });
    },
  };
}
