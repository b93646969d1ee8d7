import { generateKeyPairSync, createPrivateKey } from "node:crypto";
import fc from "fast-check";
import { SignJWT, importJWK, jwtVerify } from "jose";
import { DAY } from "../../clock";
import { sessionTokens } from "./session-token";

function keysJson(...kids: string[]): { json: string; jwks: Array<Record<string, unknown>> } {
  const jwks = kids.map((kid) => ({
    ...generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "jwk" }),
    kid,
    alg: "RS256",
  }));
  return { json: JSON.stringify(jwks), jwks };
}

const { json, jwks } = keysJson("k1");
const ISSUER = "https://id.example.test";
const AUDIENCE = "example.test";
const tokens = sessionTokens(json, ISSUER, AUDIENCE);
const now = new Date("2026-05-01T12:00:00Z");
/** The person authenticated at the identity provider two hours before the session was opened. */
const authTime = new Date(now.getTime() - 2 * 3600 * 1000);

async function issued(): Promise<string> {
  return (await tokens.issue({ uid: "u1", personId: "p1", sessionId: "s1", authTime, amr: ["otp"] }, now, 14 * DAY))
    .token;
}

async function signedWith(
  header: Record<string, unknown>,
  claims: Record<string, unknown>,
  jwk = jwks[0],
): Promise<string> {
  const key = createPrivateKey({ key: jwk as never, format: "jwk" });
  return new SignJWT(claims).setProtectedHeader(header as never).sign(key);
}

const validClaims = () => ({
  sub: "u1",
  pid: "p1",
  iss: ISSUER,
  aud: AUDIENCE,
  iat: now.getTime() / 1000,
  exp: now.getTime() / 1000 + 3600,
});

describe("session tokens", () => {
  it("verify what they issue, with the claims they carry", async () => {
    const claims = await tokens.verify(await issued(), now);
    expect(claims).toEqual({
      uid: "u1",
      personId: "p1",
      sessionId: "s1",
      authTime,
      amr: ["otp"],
      issuedAt: now,
      expiresAt: new Date(now.getTime() + 14 * DAY),
    });
  });

  it("carry no session id when issued without one (before sessions had their own id)", async () => {
    const token = await signedWith({ alg: "RS256", kid: "k1", typ: "session+jwt" }, validClaims());
    expect((await tokens.verify(token, now))?.sessionId).toBeNull();
  });

  it("count a token issued without auth_time as authenticated when it was issued", async () => {
    const token = await signedWith({ alg: "RS256", kid: "k1", typ: "session+jwt" }, validClaims());
    expect((await tokens.verify(token, now))?.authTime).toEqual(now);
  });

  it("are standard JWTs that jose verifies too", async () => {
    const publicJwk = { kty: "RSA", n: jwks[0]?.n, e: jwks[0]?.e };
    const { payload, protectedHeader } = await jwtVerify(await issued(), await importJWK(publicJwk as never, "RS256"), {
      currentDate: now,
      issuer: ISSUER,
      audience: AUDIENCE,
    });
    expect(protectedHeader).toEqual({ alg: "RS256", kid: "k1", typ: "session+jwt" });
    expect(payload).toMatchObject({ sub: "u1", pid: "p1", auth_time: authTime.getTime() / 1000 });
  });

  it("accept a lifetime of exactly 14 days and an issue time within a minute's skew", async () => {
    const at = now.getTime() / 1000;
    for (const claims of [
      { iat: at, exp: at + 14 * 86400 },
      { iat: at + 60, exp: at + 3600 },
    ]) {
      const token = await signedWith({ alg: "RS256", kid: "k1", typ: "session+jwt" }, { ...validClaims(), ...claims });
      expect(await tokens.verify(token, now)).not.toBeNull();
    }
  });

  it("expire at exactly 14 days", async () => {
    const token = await issued();
    expect(await tokens.verify(token, new Date(now.getTime() + 14 * DAY - 1))).not.toBeNull();
    expect(await tokens.verify(token, new Date(now.getTime() + 14 * DAY))).toBeNull();
  });

  it.each([
    ["alg none", { alg: "none", kid: "k1", typ: "session+jwt" }],
    ["another type", { alg: "RS256", kid: "k1", typ: "JWT" }],
    ["no type", { alg: "RS256", kid: "k1" }],
    ["an unknown kid", { alg: "RS256", kid: "k9", typ: "session+jwt" }],
  ])("refuse a token with %s", async (_label, header) => {
    const token =
      header.alg === "none"
        ? `${Buffer.from(JSON.stringify(header)).toString("base64url")}.${Buffer.from(JSON.stringify(validClaims())).toString("base64url")}.`
        : await signedWith(header, validClaims());
    expect(await tokens.verify(token, now)).toBeNull();
  });

  it.each([
    ["another issuer", { iss: "https://evil.test" }],
    ["another audience", { aud: "evil.test" }],
    ["no person", { pid: undefined }],
    ["a person id that is not a string", { pid: 42 }],
    ["an issue time in the future", { iat: now.getTime() / 1000 + 3600 }],
    ["no expiry", { exp: undefined }],
    ["a lifetime longer than 14 days", { exp: now.getTime() / 1000 + 14 * 86400 + 1 }],
    ["a lifetime of a year", { iat: now.getTime() / 1000 - 3600, exp: now.getTime() / 1000 + 365 * 86400 }],
    ["an issue time beyond a minute's skew", { iat: now.getTime() / 1000 + 61 }],
  ])("refuse a properly signed token with %s", async (_label, change) => {
    const token = await signedWith({ alg: "RS256", kid: "k1", typ: "session+jwt" }, { ...validClaims(), ...change });
    expect(await tokens.verify(token, now)).toBeNull();
  });

  it("refuse a token signed by another key under our kid", async () => {
    const other = keysJson("k1").jwks[0];
    const token = await signedWith({ alg: "RS256", kid: "k1", typ: "session+jwt" }, validClaims(), other);
    expect(await tokens.verify(token, now)).toBeNull();
  });

  it("refuse every alteration of a valid token", async () => {
    const token = await issued();
    await fc.assert(
      fc.asyncProperty(
        fc.nat(token.length - 1),
        fc.integer({ min: 32, max: 126 }).map((n) => String.fromCharCode(n)),
        async (at, c) => {
          const altered = token.slice(0, at) + c + token.slice(at + 1);
          fc.pre(altered !== token);
          const claims = await tokens.verify(altered, now);
          // base64url decoding ignores a trailing bit or two of the last character: such a twin
          // decodes to the same signature and is the same token.
          if (claims !== null)
            expect(Buffer.from(altered.split(".")[2] ?? "", "base64url")).toEqual(
              Buffer.from(token.split(".")[2] ?? "", "base64url"),
            );
        },
      ),
      { numRuns: 300 },
    );
  });

  it("refuse garbage", async () => {
    for (const garbage of ["", ".", "..", "a.b.c", "a.b", "a.b.c.d", (await issued()) + ".x"])
      expect(await tokens.verify(garbage, now)).toBeNull();
  });

  it("refuse to start without usable keys", () => {
    expect(() => sessionTokens("", ISSUER, AUDIENCE)).toThrow();
    expect(() => sessionTokens("[]", ISSUER, AUDIENCE)).toThrow();
    expect(() => sessionTokens(JSON.stringify([{ kty: "RSA" }]), ISSUER, AUDIENCE)).toThrow();
  });
});

describe("access tokens for a resource (RFC 9068)", () => {
  const at = (seconds: number) => Math.floor(now.getTime() / 1000) + seconds;
  const claims = {
    iss: "https://service.example.test",
    sub: "p1",
    aud: "https://notes.example.test/mcp",
    client_id: "agent",
    iat: at(0),
    exp: at(600),
    jti: "j1",
  };

  it("signs a JWT of type at+jwt that jose verifies for its audience, and reads back its jti", async () => {
    const token = await tokens.signAccessToken(claims);
    // What a resource server holds: the provider's published key set.
    const published = tokens.publicJwks().keys[0];
    const { payload, protectedHeader } = await jwtVerify(token, await importJWK(published as never, "RS256"), {
      audience: claims.aud,
      typ: "at+jwt",
      currentDate: now,
    });
    expect(protectedHeader).toMatchObject({ alg: "RS256", typ: "at+jwt", kid: "k1" });
    expect(payload).toMatchObject(claims);
    expect(tokens.readAccessToken(token, now)).toEqual({ jti: "j1", aud: claims.aud, iss: claims.iss });
  });

  it("reads nothing expired, of another type, or signed by another key", async () => {
    const token = await tokens.signAccessToken(claims);
    expect(tokens.readAccessToken(token, new Date(claims.exp * 1000))).toBeNull();
    const idToken = await tokens.signIdToken(claims);
    expect(tokens.readAccessToken(idToken, now)).toBeNull();
    const other = keysJson("k1").jwks[0];
    expect(
      tokens.readAccessToken(await signedWith({ alg: "RS256", typ: "at+jwt", kid: "k1" }, claims, other), now),
    ).toBeNull();
    expect(tokens.readAccessToken(await signedWith({ alg: "RS256", typ: "at+jwt", kid: "k1" }, claims), now)).toEqual(
      expect.objectContaining({ jti: "j1" }),
    );
    expect(tokens.readAccessToken("not.a.jwt", now)).toBeNull();
    // Nor can an access token pass for a session.
    expect(await tokens.verify(token, now)).toBeNull();
  });
});
