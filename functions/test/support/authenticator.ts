/**
 * A passkey authenticator in software, for the tests through HTTP: it makes discoverable ES256
 * credentials (attestation `none`) and signs assertions as a platform authenticator does
 * (WebAuthn §6.1 authenticator data, §6.5 attestation objects), with knobs a test turns to make it
 * lie: another origin or RP ID, no user verification, a counter of its choosing, a synced key.
 * The browser tests use Chromium's virtual authenticator instead.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto";
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from "@simplewebauthn/server";
import { isoCBOR } from "@simplewebauthn/server/helpers";

export const ID_ORIGIN = "https://id.example.test";

/** One credential the authenticator holds. */
export interface SoftwarePasskey {
  credentialId: Buffer;
  privateKey: KeyObject;
  /** The user handle the relying party gave at registration, base64url. */
  userHandle: string;
  rpId: string;
  /** The signature counter, counted up before each assertion (0: this authenticator keeps none). */
  counter: number;
  /** Backup eligible: a synced passkey. */
  synced: boolean;
}

/** What a ceremony claims beyond the options: a test changes one to see it refused. */
export interface Lies {
  origin?: string;
  rpId?: string;
  userVerified?: boolean;
  /** The counter to sign with, instead of the next one. */
  counter?: number;
  /** Another challenge than the options' (a replay of an older one). */
  challenge?: string;
  /** Another user handle than the credential's. */
  userHandle?: string;
}

const b64url = (bytes: Uint8Array | string) => Buffer.from(bytes).toString("base64url");
const sha256 = (data: Uint8Array | string) => createHash("sha256").update(data).digest();

function flags(options: { userVerified: boolean; synced: boolean; attested: boolean }): number {
  // UP, UV, BE and BS (a synced key is backed up here), AT: WebAuthn §6.1.
  return 0x01 | (options.userVerified ? 0x04 : 0) | (options.synced ? 0x08 | 0x10 : 0) | (options.attested ? 0x40 : 0);
}

function authenticatorData(rpId: string, flagBits: number, counter: number, attested?: Buffer): Buffer {
  const count = Buffer.alloc(4);
  count.writeUInt32BE(counter);
  return Buffer.concat([sha256(rpId), Buffer.from([flagBits]), count, ...(attested ? [attested] : [])]);
}

/** The credential's public key as COSE (RFC 9053 EC2, P-256, ES256). */
function coseKey(privateKey: KeyObject): Buffer {
  const jwk = privateKey.export({ format: "jwk" });
  const key = new Map<number, number | Uint8Array>([
    [1, 2],
    [3, -7],
    [-1, 1],
    [-2, Buffer.from(jwk.x as string, "base64url")],
    [-3, Buffer.from(jwk.y as string, "base64url")],
  ]);
  return Buffer.from(isoCBOR.encode(key));
}

function clientData(type: string, challenge: string, origin: string): string {
  return b64url(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
}

/** A credential as the browser's JSON gives it (the PublicKeyCredential's toJSON). */
function asJson<R>(passkey: SoftwarePasskey, response: R) {
  const id = b64url(passkey.credentialId);
  return {
    id,
    rawId: id,
    type: "public-key" as const,
    response,
    authenticatorAttachment: "platform" as const,
    clientExtensionResults: {},
  };
}

export class SoftwareAuthenticator {
  readonly passkeys: SoftwarePasskey[] = [];

  /** navigator.credentials.create(), answered as the browser's JSON. */
  create(
    options: PublicKeyCredentialCreationOptionsJSON,
    lies: Lies & { synced?: boolean } = {},
  ): RegistrationResponseJSON {
    const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const passkey: SoftwarePasskey = {
      credentialId: randomBytes(16),
      privateKey,
      userHandle: options.user.id,
      rpId: options.rp.id ?? "",
      counter: 0,
      synced: lies.synced ?? false,
    };
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(passkey.credentialId.length);
    const attested = Buffer.concat([Buffer.alloc(16), idLength, passkey.credentialId, coseKey(privateKey)]);
    const authData = authenticatorData(
      lies.rpId ?? passkey.rpId,
      flags({ userVerified: lies.userVerified ?? true, synced: passkey.synced, attested: true }),
      passkey.counter,
      attested,
    );
    const attestationObject = isoCBOR.encode(
      new Map<string, unknown>([
        ["fmt", "none"],
        ["attStmt", new Map()],
        ["authData", authData],
      ]) as never,
    );
    this.passkeys.push(passkey);
    return asJson(passkey, {
      clientDataJSON: clientData("webauthn.create", lies.challenge ?? options.challenge, lies.origin ?? ID_ORIGIN),
      attestationObject: b64url(attestationObject),
      transports: ["internal"],
    });
  }

  /** navigator.credentials.get() with a passkey this authenticator holds (the newest by default). */
  get(
    options: PublicKeyCredentialRequestOptionsJSON,
    lies: Lies = {},
    passkey: SoftwarePasskey | undefined = this.passkeys.at(-1),
  ): AuthenticationResponseJSON {
    if (!passkey) throw new Error("this authenticator holds no passkey");
    passkey.counter = lies.counter ?? (passkey.counter === 0 && passkey.synced ? 0 : passkey.counter + 1);
    const authData = authenticatorData(
      lies.rpId ?? options.rpId ?? passkey.rpId,
      flags({ userVerified: lies.userVerified ?? true, synced: passkey.synced, attested: false }),
      passkey.counter,
    );
    const clientDataJSON = clientData("webauthn.get", lies.challenge ?? options.challenge, lies.origin ?? ID_ORIGIN);
    const signed = Buffer.concat([authData, sha256(Buffer.from(clientDataJSON, "base64url"))]);
    return asJson(passkey, {
      clientDataJSON,
      authenticatorData: b64url(authData),
      signature: b64url(sign("sha256", signed, passkey.privateKey)),
      userHandle: lies.userHandle ?? passkey.userHandle,
    });
  }

  /** A second authenticator holding a copy of `passkey`'s key (a cloned authenticator). */
  static cloneOf(passkey: SoftwarePasskey): SoftwareAuthenticator {
    const clone = new SoftwareAuthenticator();
    clone.passkeys.push({ ...passkey });
    return clone;
  }
}
