/**
 * A client that registered itself is let in only by the person's own press on its consent page,
 * for what that page showed: a confirmation from another browser of theirs, from a page for fewer
 * scopes, another resource or another app, a post that carries no session (another site's form,
 * which the Lax cookie does not go with), or a silent request lets nothing in and gives no code.
 */
import { createHash, randomBytes } from "node:crypto";
import request from "supertest";
import { registerResource } from "../../src/core/oidc/resources";
import * as consents from "../../src/store/oidc-consents";
import * as oidc from "../../src/routes/oidc/oidc";
import { appFor, ID_URL, testDeps, unique } from "../support/deps";
import { accountWithPerson, recordedSession } from "../support/people";
import { selfRegisteredClient } from "../support/consent";

const REDIRECT = "https://agent.example.test/callback";
const ID_HOST = new URL(ID_URL).host;

describe("consent to an app that registered itself", () => {
  const deps = testDeps();
  const oidcApp = appFor(oidc, deps);
  const first = unique("dyn");
  const second = unique("dyn");
  const notes = `https://notes.example.test/${unique("mcp")}`;
  const tasks = `https://tasks.example.test/${unique("mcp")}`;

  beforeAll(async () => {
    for (const clientId of [first, second])
      await selfRegisteredClient(deps, clientId, { secret: randomBytes(32).toString("base64url") });
    for (const url of [notes, tasks])
      await registerResource(deps, { url, name: "Site", scopes: ["site:read"], clients: [first, second] });
  });

  const challenge = createHash("sha256").update(randomBytes(32).toString("base64url")).digest("base64url");
  const fieldsFor = (clientId: string, extra: Record<string, string> = {}) => ({
    client_id: clientId,
    redirect_uri: REDIRECT,
    response_type: "code",
    scope: "openid",
    state: "s",
    code_challenge: challenge,
    code_challenge_method: "S256",
    ...extra,
  });
  const page = async (cookie: string, clientId: string, extra: Record<string, string> = {}) => {
    const res = await request(oidcApp)
      .get(`/auth/oidc/authorize?${new URLSearchParams(fieldsFor(clientId, extra))}`)
      .set("Cookie", cookie)
      .set("X-Forwarded-Host", ID_HOST);
    expect(res.status).toBe(200);
    return /name="consent" value="([0-9a-f]{64})"/.exec(res.text)?.[1] as string;
  };
  const post = (cookie: string | null, form: Record<string, string>) => {
    const req = request(oidcApp).post("/auth/oidc/authorize").type("form").set("X-Forwarded-Host", ID_HOST);
    return (cookie === null ? req : req.set("Cookie", cookie)).send(form);
  };
  /** Nothing let in: the page again (or a trip to sign in), no code anywhere, nothing remembered. */
  async function nothingLetIn(res: request.Response, personId: string) {
    expect(res.text).not.toContain("code=");
    expect(res.headers.location ?? "").not.toContain("code=");
    expect(await consents.ofPerson(deps.store, personId)).toEqual([]);
  }

  async function person() {
    const { person } = await accountWithPerson({ name: "Ada" });
    const { cookie } = await recordedSession(deps, person);
    return { person, cookie };
  }

  it("takes no confirmation shown to another browser of the same person", async () => {
    const { person: p, cookie } = await person();
    const { cookie: other } = await recordedSession(deps, p);
    const theirs = await page(other, first);
    const res = await post(cookie, { ...fieldsFor(first), consent: theirs, answer: "allow" });
    expect(res.status).toBe(200);
    expect(res.text).toContain("use your account?");
    await nothingLetIn(res, p.id);
  });

  it("takes no confirmation for fewer scopes, another resource or another app", async () => {
    const { person: p, cookie } = await person();
    const narrow = await page(cookie, first, { scope: "openid" });
    await nothingLetIn(
      await post(cookie, {
        ...fieldsFor(first, { scope: "openid email offline_access" }),
        consent: narrow,
        answer: "allow",
      }),
      p.id,
    );
    const forNotes = await page(cookie, first, { scope: "openid site:read", resource: notes });
    await nothingLetIn(
      await post(cookie, {
        ...fieldsFor(first, { scope: "openid site:read", resource: tasks }),
        consent: forNotes,
        answer: "allow",
      }),
      p.id,
    );
    const forFirst = await page(cookie, first);
    await nothingLetIn(await post(cookie, { ...fieldsFor(second), consent: forFirst, answer: "allow" }), p.id);
  });

  it("lets nothing in from a post without the session, as another site's form arrives", async () => {
    const { person: p, cookie } = await person();
    const confirmation = await page(cookie, first);
    const res = await post(null, { ...fieldsFor(first), consent: confirmation, answer: "allow" });
    expect(res.status).toBe(302);
    expect(res.headers.location).toMatch(new RegExp(`^${ID_URL}/\\?redirect=`));
    await nothingLetIn(res, p.id);
  });

  it("gives a silent request no code until the person said yes: consent_required, said on a page", async () => {
    const { person: p, cookie } = await person();
    const res = await request(oidcApp)
      .get(`/auth/oidc/authorize?${new URLSearchParams(fieldsFor(first, { prompt: "none" }))}`)
      .set("Cookie", cookie);
    // Never let in by this person, its redirect URI is only its registrant's word: not bounced there.
    expect(res.status).toBe(200);
    expect(res.headers.location).toBeUndefined();
    expect(res.text).toContain("consent_required");
    expect(res.text).toContain("It asked to send you back to agent.example.test.");
    await nothingLetIn(res, p.id);
  });

  it("lets in only on the yes: a no, or a post with no answer, tells the app access_denied", async () => {
    const { person: p, cookie } = await person();
    const confirmation = await page(cookie, first);
    const no = await post(cookie, { ...fieldsFor(first), consent: confirmation, answer: "deny" });
    expect(no.text).toContain("error=access_denied");
    await nothingLetIn(no, p.id);
    const unanswered = await post(cookie, { ...fieldsFor(first), consent: confirmation });
    expect(unanswered.text).toContain("error=access_denied");
    await nothingLetIn(unanswered, p.id);
  });
});
