/** POST /auth/idp/claims: a signed request's person's claims, and every refusal of one not signed. */
import { createHmac } from "node:crypto";
import request from "supertest";
import * as claims from "../../src/routes/claims/claims";
import { SIGNATURE_TOLERANCE_S } from "../../src/core/claims/idp-claims";
import { appFor, testConfig, testDeps, unique, type TestDeps } from "../support/deps";
import { accountWithPerson, personFor } from "../support/people";
import { signedUp } from "../support/auth";
import { firestoreAt, ownFirestore, retire, stopped } from "../support/own-firestore";

const SECRET = testConfig().idpSigningSecret;
const NS = "urn:identity:";

/** The provider's side of the signature, written out from the format (not through our code). */
function signature(body: string, t: number, secret = SECRET): string {
  return `t=${t},v1=${createHmac("sha256", secret).update(`${t}.${body}`).digest("hex")}`;
}

function nowSeconds(deps: TestDeps): number {
  return Math.floor(deps.clock.now().getTime() / 1000);
}

function ask(deps: TestDeps, body: string, header?: string) {
  const req = request(appFor(claims, deps)).post("/auth/idp/claims").set("Content-Type", "application/json");
  return (header === undefined ? req : req.set("Idp-Signature", header)).send(body);
}

describe("POST /auth/idp/claims", () => {
  it("answers the claims of the person behind a signed request's account", async () => {
    const deps = testDeps();
    const { account, person } = await accountWithPerson({ role: "admin", projects: ["startpage", "status"] });
    const body = JSON.stringify({ uid: account.uid });
    const res = await ask(deps, body, signature(body, nowSeconds(deps)));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      claims: {
        [`${NS}personId`]: person.id,
        [`${NS}status`]: "approved",
        [`${NS}role`]: "admin",
        [`${NS}projects`]: ["startpage", "status"],
      },
    });
  });

  it("says what a person's standing is, pending or rejected, so the token carries it", async () => {
    const deps = testDeps();
    const { account } = await accountWithPerson({ status: "pending" });
    const body = JSON.stringify({ uid: account.uid });
    const res = await ask(deps, body, signature(body, nowSeconds(deps)));
    expect(res.status).toBe(200);
    expect(res.body.claims[`${NS}status`]).toBe("pending");
  });

  it("finds a person by an address the provider has verified, never by one it has not", async () => {
    const deps = testDeps();
    const email = `${unique("c")}@example.test`;
    const person = await personFor({ uid: unique("other"), email });
    const newAccount = unique("new");
    const verified = JSON.stringify({ uid: newAccount, email: email.toUpperCase(), emailVerified: true });
    expect((await ask(deps, verified, signature(verified, nowSeconds(deps)))).body.claims[`${NS}personId`]).toBe(
      person.id,
    );
    const unverified = JSON.stringify({ uid: newAccount, email, emailVerified: false });
    expect((await ask(deps, unverified, signature(unverified, nowSeconds(deps)))).body).toEqual({ claims: {} });
  });

  it("answers no claims for an account no person holds", async () => {
    const deps = testDeps();
    const account = await signedUp();
    const body = JSON.stringify({ uid: account.uid });
    const res = await ask(deps, body, signature(body, nowSeconds(deps)));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ claims: {} });
  });

  it("leaves the project list out when the claims would pass the provider's 1,000 bytes", async () => {
    const deps = testDeps();
    const projects = Array.from({ length: 60 }, (_, i) => `project-with-a-long-name-${i}`);
    const { account, person } = await accountWithPerson({ projects });
    const body = JSON.stringify({ uid: account.uid });
    const res = await ask(deps, body, signature(body, nowSeconds(deps)));
    expect(res.body.claims).toEqual({
      [`${NS}personId`]: person.id,
      [`${NS}status`]: "approved",
      [`${NS}role`]: "user",
    });
  });

  it("accepts any of several signatures, and any of several configured secrets", async () => {
    const deps = testDeps({ config: testConfig({ idpSigningSecret: "new-secret, old-secret" }) });
    const { account, person } = await accountWithPerson();
    const body = JSON.stringify({ uid: account.uid });
    const t = nowSeconds(deps);
    const wrong = createHmac("sha256", "unknown").update(`${t}.${body}`).digest("hex");
    const both = `t=${t},v1=${wrong},v1=${createHmac("sha256", "old-secret").update(`${t}.${body}`).digest("hex")}`;
    expect((await ask(deps, body, both)).body.claims[`${NS}personId`]).toBe(person.id);
    expect((await ask(deps, body, signature(body, t, "new-secret"))).status).toBe(200);
    // Spaces after the commas and an empty part are tolerated, as header lists allow.
    expect((await ask(deps, body, `${signature(body, t, "new-secret").replace(",", ", ")},`)).status).toBe(200);
    // Hex digits in either case.
    expect(
      (await ask(deps, body, signature(body, t, "new-secret").toUpperCase().replace("T=", "t=").replace("V1=", "v1=")))
        .status,
    ).toBe(200);
  });

  describe("refusals", () => {
    const body = JSON.stringify({ uid: "someone" });

    it.each([
      ["no header", undefined],
      ["an empty header", ""],
      ["no timestamp", `v1=${"a".repeat(64)}`],
      ["no signature", "t=1"],
      ["a signature that is not hex", "t=1,v1=zz"],
      ["two timestamps", `t=1,t=2,v1=${"a".repeat(64)}`],
      ["a part that is not key=value", `t=1,v1=${"a".repeat(64)},garbage`],
    ])("401 for %s", async (_what, header) => {
      const res = await ask(testDeps(), body, header);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: "Missing or malformed Idp-Signature header" });
    });

    it("401 for a signature of another body, or with another secret", async () => {
      const deps = testDeps();
      const t = nowSeconds(deps);
      const tampered = await ask(deps, JSON.stringify({ uid: "someone-else" }), signature(body, t));
      expect(tampered.status).toBe(401);
      expect(tampered.body).toEqual({ error: "Idp-Signature does not match" });
      expect((await ask(deps, body, signature(body, t, "not-the-secret"))).status).toBe(401);
      // The timestamp is signed too: the same v1 under another t does not pass.
      const moved = signature(body, t).replace(`t=${t}`, `t=${t - 1}`);
      expect((await ask(deps, body, moved)).body).toEqual({ error: "Idp-Signature does not match" });
    });

    it(`401 once the timestamp is more than ${SIGNATURE_TOLERANCE_S} s away, either way`, async () => {
      const deps = testDeps();
      const t = nowSeconds(deps);
      expect((await ask(deps, body, signature(body, t - SIGNATURE_TOLERANCE_S))).status).not.toBe(401);
      for (const far of [t - SIGNATURE_TOLERANCE_S - 1, t + SIGNATURE_TOLERANCE_S + 1]) {
        const res = await ask(deps, body, signature(body, far));
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ error: "Idp-Signature timestamp is outside the tolerance" });
      }
    });

    it("400 for a signed body without a uid, or with fields of the wrong type; 415 for one that is not JSON", async () => {
      const deps = testDeps();
      const t = nowSeconds(deps);
      for (const bad of [
        JSON.stringify({}),
        JSON.stringify({ uid: "" }),
        JSON.stringify({ uid: "a", emailVerified: "yes" }),
      ]) {
        const res = await ask(deps, bad, signature(bad, t));
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ error: "uid is required; email must be a string and emailVerified a boolean" });
      }
      // A field we do not know, beside a good uid: named, since the two ends disagree on the body.
      const extra = JSON.stringify({ uid: "a", tenant: "t1" });
      const named = await ask(deps, extra, signature(extra, t));
      expect([named.status, named.body]).toEqual([400, { error: "Unknown field: tenant", reason: "unknown_field" }]);
      const form = "uid=a";
      const res = await request(appFor(claims, deps))
        .post("/auth/idp/claims")
        .set("Content-Type", "application/x-www-form-urlencoded")
        .set("Idp-Signature", signature(form, t))
        .send(form);
      expect(res.status).toBe(415);
    });

    it("503 when no signing secret is configured, whatever is sent", async () => {
      const deps = testDeps({ config: testConfig({ idpSigningSecret: "" }) });
      const res = await ask(deps, body, signature(body, nowSeconds(deps), ""));
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ error: "The claims callback is not configured" });
    });
  });

  it("answers no claims, within its deadline, when the person lookup cannot be made", async () => {
    const { port, emulator } = await ownFirestore();
    const store = firestoreAt(`127.0.0.1:${port}`);
    try {
      await stopped(emulator);
      const deps = testDeps({ store });
      const body = JSON.stringify({ uid: "anyone" });
      // Without its own deadline the lookup would outlast the request's, which answers 503.
      const res = await ask(deps, body, signature(body, nowSeconds(deps)));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ claims: {} });
    } finally {
      await retire(store, port, 1);
    }
  }, 60_000);
});
