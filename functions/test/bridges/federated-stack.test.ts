/**
 * The federated bridge as `npm start` configures it: every idp, each served by the stack's own
 * provider in its provider's style, through Hosting, the bridge function and the Auth emulator.
 *
 * @stack-project requests go through Hosting to the stack's functions
 */
import { randomInt } from "node:crypto";
import { hiddenFields } from "../support/federated-provider";

const base = process.env.STACK_BASE_URL as string;
const CALLBACK = `${base}/auth/bridge/federated/callback`;

async function startAt(idp: string): Promise<{ location: URL; stateCookie: string }> {
  const started = await fetch(`${base}/auth/bridge/federated/start?idp=${idp}`, { redirect: "manual" });
  expect(started.status).toBe(302);
  const stateCookie = /^__session=bridge\.[^;]+/.exec(started.headers.getSetCookie()[0] ?? "")?.[0] as string;
  expect(stateCookie).toBeDefined();
  return { location: new URL(started.headers.get("location") as string), stateCookie };
}

describe("the local stack's federated providers", () => {
  it("are all listed", async () => {
    const res = await fetch(`${base}/auth/bridge/`);
    const { providers } = (await res.json()) as { providers: Array<{ id: string; idps?: string[] }> };
    expect(providers.find((p) => p.id === "federated")?.idps?.sort()).toEqual(
      ["codehost", "devicemaker", "native", "professional", "search"].sort(),
    );
  });

  it.each([
    ["search", "openid email profile"],
    ["codehost", "read:user user:email"],
    ["professional", "openid profile email"],
    ["native", "openid email profile"],
  ])("sign in by redirect (idp=%s), asking for %s", async (idp, scope) => {
    const { location, stateCookie } = await startAt(idp);
    expect(location.searchParams.get("scope")).toBe(scope);
    expect(location.searchParams.get("response_mode")).toBeNull();
    const sub = String(randomInt(1, 1_000_000_000));
    const atProvider = await fetch(`${location}&account=${sub}&email=${idp}-${sub}@example.test&name=Stack+Person`, {
      redirect: "manual",
    });
    expect(atProvider.status).toBe(302);
    const back = new URL(atProvider.headers.get("location") as string);
    expect(`${back.origin}${back.pathname}`).toBe(CALLBACK);
    const done = await fetch(back, { redirect: "manual", headers: { cookie: stateCookie } });
    expect(done.status).toBe(302);
    expect(new URL(done.headers.get("location") as string).searchParams.get("customToken")).toEqual(expect.any(String));
  });

  it("signs in at the device maker's (idp=devicemaker) by form_post: a POST without the Lax cookie, passed on to a GET with it", async () => {
    const { location, stateCookie } = await startAt("devicemaker");
    expect(location.searchParams.get("response_mode")).toBe("form_post");
    const sub = String(randomInt(1, 1_000_000_000));
    const relay = `${sub}@privaterelay.appleid.test`;
    const page = await fetch(`${location}&account=${sub}&email=${relay}&name=Device+Person`, { redirect: "manual" });
    expect(page.status).toBe(200);
    const fields = hiddenFields(await page.text());
    expect(JSON.parse(fields.get("user") as string)).toEqual({
      name: { firstName: "Device", lastName: "Person" },
      email: relay,
    });
    // The provider's page POSTs from its own site: the browser sends no Lax cookie with it.
    const posted = await fetch(CALLBACK, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: fields.toString(),
      redirect: "manual",
    });
    expect(posted.status).toBe(303);
    const onward = new URL(posted.headers.get("location") as string, CALLBACK);
    expect(`${onward.origin}${onward.pathname}`).toBe(CALLBACK);
    expect(onward.searchParams.get("user")).toBeNull();
    const done = await fetch(onward, { redirect: "manual", headers: { cookie: stateCookie } });
    expect(done.status).toBe(302);
    expect(new URL(done.headers.get("location") as string).searchParams.get("customToken")).toEqual(expect.any(String));
  });
});
