/**
 * In a real browser, as people and the sibling apps meet the service: the identity host opens a
 * session, an app on another subdomain uses it, a foreign site cannot, logout ends it.
 *
 * @stack-project a browser reaches the stack's functions
 */
import type { Page } from "playwright-core";
import { accountWithPerson } from "../support/people";
import { FOREIGN_HOST, ID_HOST, SERVICE, useBrowserWorld } from "../support/browser";

const world = useBrowserWorld();

interface Answer {
  status: number;
  body: Record<string, unknown> | null;
}

/**
 * `fetch` from the page's own origin, credentials included, as an app's script calls the service
 * (at its own address). The identity host's pages call their own host, whose Hosting site serves
 * the same paths: its policy lets them connect nowhere else.
 */
function call(page: Page, method: string, path: string, body?: unknown): Promise<Answer> {
  const base = new URL(page.url()).origin === ID_HOST ? ID_HOST : SERVICE;
  return page.evaluate(
    async ({ url, method, body }) => {
      const res = await fetch(url, {
        method,
        credentials: "include",
        headers: body === undefined ? {} : { "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text.startsWith("{") ? (JSON.parse(text) as Record<string, unknown>) : null };
    },
    { url: `${base}${path}`, method, body },
  );
}

async function pageAt(host: string): Promise<Page> {
  const page = await (await world().context()).newPage();
  await page.goto(`https://${host}/`);
  return page;
}

describe("in a browser", () => {
  it("a session opened on the identity host is the session of every app on the parent domain, and logout ends it there", async () => {
    const { account, person } = await accountWithPerson({ projects: ["startpage"] });
    const id = await pageAt("id.example.test");
    const verified = await call(id, "POST", "/auth/verify", { idToken: account.idToken, project: "startpage" });
    expect(verified).toMatchObject({ status: 200, body: { approved: true, personId: person.id } });
    // HttpOnly: the page's scripts never see it.
    expect(await id.evaluate("document.cookie")).not.toContain("__session");

    // Another subdomain, same browser: the cookie goes with the app's credentialed requests.
    const app = await id.context().newPage();
    await app.goto("https://startpage.example.test/");
    expect(await call(app, "POST", "/auth/session/refresh")).toMatchObject({
      status: 200,
      body: { authenticated: true, personId: person.id },
    });
    expect(await call(app, "GET", "/startpage/notifications")).toMatchObject({
      status: 200,
      body: { notifications: expect.any(Array) },
    });

    expect(await call(app, "POST", "/auth/logout")).toMatchObject({ status: 200, body: { ok: true } });
    expect(await call(id, "POST", "/auth/session/refresh")).toMatchObject({
      status: 401,
      body: { authenticated: false },
    });
  });

  it("a foreign site's script can neither read an answer nor end the session", async () => {
    const { account } = await accountWithPerson({ projects: ["startpage"] });
    const id = await pageAt("id.example.test");
    expect((await call(id, "POST", "/auth/verify", { idToken: account.idToken, project: "startpage" })).status).toBe(
      200,
    );

    const foreign = await id.context().newPage();
    await foreign.goto(`https://${FOREIGN_HOST}/`);
    // No allow-origin for it: the browser hides the answer, so the fetch itself fails.
    await expect(call(foreign, "GET", "/startpage/notifications")).rejects.toThrow(/Failed to fetch/);
    await expect(call(foreign, "POST", "/auth/logout")).rejects.toThrow(/Failed to fetch/);
    // And what it sent had no effect: the session is still there for the identity host.
    expect(await call(id, "POST", "/auth/session/refresh")).toMatchObject({
      status: 200,
      body: { authenticated: true },
    });
  });

  it("a person who is not approved gets no cookie", async () => {
    const { account } = await accountWithPerson({ status: "pending", projects: ["startpage"] });
    const id = await pageAt("id.example.test");
    expect(await call(id, "POST", "/auth/verify", { idToken: account.idToken, project: "startpage" })).toMatchObject({
      status: 200,
      body: { approved: false, reason: "pending" },
    });
    expect(await call(id, "POST", "/auth/session/refresh")).toMatchObject({ status: 401 });
    expect(await id.context().cookies(SERVICE)).toEqual([]);
  });
});
