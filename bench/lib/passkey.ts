/**
 * A passkey for the bench: an ES256 key whose public half is stored as the service stores a
 * registered one (through its own store module), and the assertions it signs over a challenge,
 * as a platform authenticator would (WebAuthn §6.1: authenticator data, then the signature over
 * it and the client data's hash). What the sign-in's operations are counted around.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto";
import { requireFromFunctions, service } from "./functions.ts";

const { isoCBOR } = requireFromFunctions("@simplewebauthn/server/helpers");
const passkeys = service<any>("store/passkeys");

const sha256 = (data: Buffer | string) => createHash("sha256").update(data).digest();

export interface BenchPasskey {
  credentialId: string;
  privateKey: KeyObject;
  userHandle: string;
  counter: number;
}

/** A passkey of `personId`'s, stored as a registration stores it. */
export async function storedPasskey(db: any, person: { personId: string; uid: string }): Promise<BenchPasskey> {
  const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const { x, y } = privateKey.export({ format: "jwk" });
  const cose = new Map<number, number | Buffer>([
    [1, 2],
    [3, -7],
    [-1, 1],
    [-2, Buffer.from(x as string, "base64url")],
    [-3, Buffer.from(y as string, "base64url")],
  ]);
  const credentialId = randomBytes(16).toString("base64url");
  await db.runTransaction(async (tx: unknown) =>
    passkeys.create(db, tx, {
      id: sha256(credentialId).toString("hex"),
      personId: person.personId,
      uid: person.uid,
      credentialId,
      publicKey: Buffer.from(isoCBOR.encode(cose)).toString("base64url"),
      counter: 0,
      transports: ["internal"],
      aaguid: "00000000-0000-0000-0000-000000000000",
      backupEligible: false,
      backedUp: false,
      name: "Bench passkey",
      createdAt: new Date(),
      lastUsedAt: null,
      suspectAt: null,
    }),
  );
  return { credentialId, privateKey, userHandle: Buffer.from(person.personId).toString("base64url"), counter: 0 };
}

/** The browser's JSON for an assertion over `options`' challenge from the identity host's page. */
export function assertion(passkey: BenchPasskey, options: { challenge: string; rpId: string }) {
  passkey.counter += 1;
  const count = Buffer.alloc(4);
  count.writeUInt32BE(passkey.counter);
  // UP and UV: the user was present and verified.
  const authData = Buffer.concat([sha256(options.rpId), Buffer.from([0x05]), count]);
  const clientData = JSON.stringify({
    type: "webauthn.get",
    challenge: options.challenge,
    origin: "https://id.example.test",
  });
  const signature = sign("sha256", Buffer.concat([authData, sha256(clientData)]), passkey.privateKey);
  return {
    id: passkey.credentialId,
    rawId: passkey.credentialId,
    type: "public-key",
    response: {
      clientDataJSON: Buffer.from(clientData).toString("base64url"),
      authenticatorData: authData.toString("base64url"),
      signature: signature.toString("base64url"),
      userHandle: passkey.userHandle,
    },
    clientExtensionResults: {},
  };
}
