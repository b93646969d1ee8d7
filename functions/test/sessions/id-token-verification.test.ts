/**
 * ID-token verification as the deployed functions run it. The local stack's Auth emulator accepts
 * unsigned tokens (`alg: none`), so nothing through the stack shows that a forged token is
 * refused. Here the production adapter (adapters/identity) and the provider's own SDK check
 * signatures for real: the SDK runs without the emulator variable, and the one thing changed is
 * where it fetches the identity provider's public keys, a local key set served on loopback.
 */
import { createServer, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { Agent } from "node:https";
import { generateKeyPairSync, type KeyObject } from "node:crypto";
import { initializeApp } from "firebase-admin/app";
import { getAuth } from "firebase-admin/auth";
import { SignJWT } from "jose";
import request from "supertest";
import { firebaseIdentity } from "../../src/adapters/identity";
import * as sessions from "../../src/routes/sessions/sessions";
import * as startpage from "../../src/routes/startpage/startpage";
import { appFor, testDeps, unique } from "../support/deps";
import { personFor } from "../support/people";

const project = process.env.GCLOUD_PROJECT as string;
const ISSUER = `https://securetoken.google.com/${project}`;
const rsa = () => generateKeyPairSync("rsa", { modulusLength: 2048 });
/** The provider's signing key, published in the local key set under its kid. */
const provider = { kid: "provider-key-1", ...rsa() };
/** A key nobody published. */
const foreign = rsa();

/** Sends every request of the SDK's key fetch to the local key server, whatever host it names. */
class LocalKeys extends Agent {
  constructor(private readonly port: number) {
    super({ keepAlive: false });
  }
  override createConnection(): ReturnType<typeof connect> {
    return connect(this.port, "127.0.0.1");
  }
}

let server: Server;
let keyFetches = 0;
const savedEmulator = process.env.FIREBASE_AUTH_EMULATOR_HOST;

beforeAll(async () => {
  server = createServer((_req, res) => {
    keyFetches++;
    // The shape the provider serves: kid → PEM, with a cache lifetime.
    res.writeHead(200, { "content-type": "application/json", "cache-control": "public, max-age=3600" });
    res.end(JSON.stringify({ [provider.kid]: provider.publicKey.export({ type: "spki", format: "pem" }) }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  // The SDK checks signatures only when it is not pointed at an emulator.
  delete process.env.FIREBASE_AUTH_EMULATOR_HOST;
});

afterAll(async () => {
  process.env.FIREBASE_AUTH_EMULATOR_HOST = savedEmulator;
  await new Promise((resolve) => server.close(resolve));
});

function productionIdentity() {
  const { port } = server.address() as AddressInfo;
  const app = initializeApp({ projectId: project, httpAgent: new LocalKeys(port) }, unique("production-path"));
  return firebaseIdentity(getAuth(app));
}

type Header = { alg: string; kid?: string; typ?: string };

function claims(uid: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000); // eslint-disable-line no-restricted-syntax -- the SDK checks against the real clock
  return {
    iss: ISSUER,
    aud: project,
    sub: uid,
    iat: now - 10,
    exp: now + 3600,
    auth_time: now - 10,
    email: `${uid}@example.test`,
    email_verified: true,
    firebase: { sign_in_provider: "password", identities: {} },
    ...overrides,
  };
}

function signed(body: Record<string, unknown>, key: KeyObject = provider.privateKey, header?: Header): Promise<string> {
  return new SignJWT(body).setProtectedHeader(header ?? { alg: "RS256", kid: provider.kid, typ: "JWT" }).sign(key);
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

/** Every way of forging a token for `uid` that the production path must refuse. */
async function forgeries(uid: string): Promise<Array<[string, string]>> {
  const valid = await signed(claims(uid));
  const [head, payload, signature] = valid.split(".") as [string, string, string];
  const flipped = Buffer.from(signature, "base64url");
  flipped[flipped.length - 1] = (flipped[flipped.length - 1] as number) ^ 1;
  const publicPem = provider.publicKey.export({ type: "spki", format: "pem" }) as string;
  return [
    ["alg none", `${b64({ alg: "none", kid: provider.kid, typ: "JWT" })}.${payload}.`],
    ["a flipped signature bit", `${head}.${payload}.${flipped.toString("base64url")}`],
    ["another key under the published kid", await signed(claims(uid), foreign.privateKey)],
    ["a kid nobody published", await signed(claims(uid), foreign.privateKey, { alg: "RS256", kid: "other" })],
    [
      "HS256 keyed with the published public key",
      await new SignJWT(claims(uid))
        .setProtectedHeader({ alg: "HS256", kid: provider.kid, typ: "JWT" })
        .sign(Buffer.from(publicPem)),
    ],
    ["another audience", await signed(claims(uid, { aud: "some-other-project" }))],
    ["another issuer", await signed(claims(uid, { iss: "https://securetoken.google.com/some-other-project" }))],
    ["an expired token", await signed(claims(uid, { iat: 1_000_000, exp: 1_003_600, auth_time: 1_000_000 }))],
  ];
}

describe("ID tokens on the production path (signatures checked against the provider's key set)", () => {
  it("accepts a token the provider's key signed, at a gated endpoint", async () => {
    const uid = unique("prod");
    const person = await personFor({ uid, email: `${uid}@example.test` }, { projects: ["startpage"] });
    const app = appFor(startpage, testDeps({ identity: productionIdentity() }));
    const res = await request(app)
      .get("/startpage/notifications")
      .set("Authorization", `Bearer ${await signed(claims(uid))}`);
    expect(res.status).toBe(200);
    expect(keyFetches).toBeGreaterThan(0);
    expect(person.uids).toEqual([uid]);
  });

  it("refuses every forgery at POST /auth/verify with 401 Invalid token", async () => {
    const uid = unique("prod");
    await personFor({ uid, email: `${uid}@example.test` }, { projects: ["startpage"] });
    const app = appFor(sessions, testDeps({ identity: productionIdentity() }));
    const answers: Array<[string, number, unknown]> = [];
    for (const [label, token] of await forgeries(uid)) {
      const res = await request(app).post("/auth/verify").send({ idToken: token, project: "startpage" });
      answers.push([label, res.status, res.body]);
      expect(res.headers["set-cookie"]).toBeUndefined();
    }
    expect(answers).toEqual(
      answers.map(([label]) => [label, 401, { error: "Invalid token", reason: "invalid_token" }]),
    );
  });

  it("refuses every forgery as a bearer token at a gated endpoint with 401 Unauthorized", async () => {
    const uid = unique("prod");
    await personFor({ uid, email: `${uid}@example.test` }, { projects: ["startpage"] });
    const app = appFor(startpage, testDeps({ identity: productionIdentity() }));
    const answers: Array<[string, number]> = [];
    for (const [label, token] of await forgeries(uid)) {
      const res = await request(app).get("/startpage/notifications").set("Authorization", `Bearer ${token}`);
      answers.push([label, res.status]);
    }
    expect(answers).toEqual(answers.map(([label]) => [label, 401]));
  });
});
