/**
 * Through the Hosting emulator, as browsers reach the service: rewrite → function → express app.
 *
 * @stack-project requests go through Hosting to the stack's functions
 */
import { spawnSync } from "node:child_process";
import { createHmac, randomInt } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GROUPS, type GroupName } from "../../src/groups";
import { APP_SITES, OWN_SITES, PATHS, type Route } from "../../src/paths";
import { COMMON_OPTIONS } from "../../src/runtime/function";
import { passkeyWorld } from "../support/passkeys";
import { accountWithPerson } from "../support/people";

const base = process.env.STACK_BASE_URL as string;
const idHost = process.env.STACK_ID_URL as string;

/**
 * The identity host's pages, as site/pages.ts declares them: firebase.json's rule for their
 * headers names each (tools/hosting.ts writes it from that list, and the suite checks it does).
 */
function identityPages(): string[] {
  const config = JSON.parse(readFileSync(join(__dirname, "..", "..", "..", "firebase.json"), "utf8")) as {
    hosting: Array<{ target: string; headers?: Array<{ regex?: string }> }>;
  };
  const rule = config.hosting.find((s) => s.target === "id")?.headers?.find((h) => h.regex !== undefined)?.regex ?? "";
  const names = /^\^\/\((.*)\)\?\$$/.exec(rule)?.[1]?.split("|") ?? [];
  return ["/", ...names.filter((n) => !n.includes("\\.")).map((n) => `/${n}`)];
}

describe("Hosting rewrites", () => {
  it("serves POST /auth/logout through the sessions function, clearing the cookie", async () => {
    const res = await fetch(`${base}/auth/logout`, { method: "POST" });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
    const cookie = res.headers.getSetCookie()[0] ?? "";
    expect(cookie).toMatch(
      /^__session=; Domain=example\.test; Path=\/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; Secure; SameSite=Lax$/,
    );
  });

  it.each([
    ["POST", "/auth/verify"],
    ["POST", "/auth/session/refresh"],
    ["POST", "/auth/otp/send"],
    ["GET", "/auth/handoff"],
    ["GET", "/auth/passkeys"],
    ["POST", "/auth/passkeys/sign-in/options"],
    ["GET", "/auth/people"],
    ["GET", "/auth/oidc/userinfo"],
    ["POST", "/auth/idp/claims"],
    ["GET", "/startpage/notifications"],
    ["GET", "/calendar/events"],
    ["GET", "/location"],
    ["GET", "/status"],
  ])("hands %s %s to a function that answers JSON", async (method, path) => {
    const res = await fetch(`${base}${path}`, { method });
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res.headers.get("cache-control")).toContain("no-store");
  });

  it("hands the discovery document to the oidc function, which lets it be cached", async () => {
    const res = await fetch(`${base}/.well-known/openid-configuration`);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("public, max-age=3600");
    // The local stack's issuer is the Hosting emulator itself, where a relying party reaches it.
    expect(await res.json()).toMatchObject({ issuer: base, token_endpoint: `${base}/auth/oidc/token` });
  });

  it("hands the bridge paths to the bridge function, which answers HTML", async () => {
    const res = await fetch(`${base}/auth/bridge/nowhere/start`, { redirect: "manual" });
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(res.status).toBeGreaterThanOrEqual(300);
  });

  it("signs in through the gaming bridge and the stack's provider, the state cookie passing Hosting beside a session cookie", async () => {
    const listed = await fetch(`${base}/auth/bridge/`);
    const { providers } = (await listed.json()) as { providers: Array<{ id: string }> };
    expect(providers.map((p) => p.id).sort()).toEqual(["federated", "gaming"]);
    const started = await fetch(`${base}/auth/bridge/gaming/start`, { redirect: "manual" });
    expect(started.status).toBe(302);
    const stateCookie = /^__session=bridge\.[^;]+/.exec(started.headers.getSetCookie()[0] ?? "")?.[0] as string;
    expect(stateCookie).toBeDefined();
    const atProvider = await fetch(`${started.headers.get("location")}&account=76561190000000777`, {
      redirect: "manual",
    });
    const back = new URL(atProvider.headers.get("location") as string);
    expect(back.origin).toBe(base);
    // A browser with a session sends both: the longer path's cookie first, and Hosting forwards only the first.
    const { account } = await accountWithPerson({ projects: ["startpage"] });
    const verified = await fetch(`${base}/auth/verify`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ idToken: account.idToken, project: "startpage" }),
    });
    const session = /^__session=[^;]+/.exec(verified.headers.getSetCookie()[0] ?? "")?.[0] as string;
    expect(session).toBeDefined();
    const done = await fetch(back, { redirect: "manual", headers: { cookie: `${stateCookie}; ${session}` } });
    expect(done.status).toBe(302);
    const to = new URL(done.headers.get("location") as string);
    expect(to.pathname).toBe("/");
    expect(to.searchParams.get("customToken")).toEqual(expect.any(String));
    expect(done.headers.getSetCookie()[0]).toMatch(/^__session=; Domain=example\.test; Path=\/auth\/bridge;/);
  });

  it.each([
    ["search", "OpenID Connect"],
    ["codehost", "plain OAuth 2.0"],
  ])("signs in through the federated bridge (idp=%s, %s), the stack's provider and the Auth emulator", async (idp) => {
    const started = await fetch(`${base}/auth/bridge/federated/start?idp=${idp}`, { redirect: "manual" });
    expect(started.status).toBe(302);
    const stateCookie = /^__session=bridge\.[^;]+/.exec(started.headers.getSetCookie()[0] ?? "")?.[0] as string;
    const sub = String(randomInt(1, 1_000_000_000));
    const atProvider = await fetch(
      `${started.headers.get("location")}&account=${sub}&email=hosting-${sub}@example.test`,
      { redirect: "manual" },
    );
    const back = new URL(atProvider.headers.get("location") as string);
    expect(`${back.origin}${back.pathname}`).toBe(`${base}/auth/bridge/federated/callback`);
    const done = await fetch(back, { redirect: "manual", headers: { cookie: stateCookie } });
    expect(done.status).toBe(302);
    expect(new URL(done.headers.get("location") as string).searchParams.get("customToken")).toEqual(expect.any(String));
  });

  it("signs in with a passkey through Hosting, the binding cookie passing beside a session cookie", async () => {
    const { authenticator } = await passkeyWorld().withPasskey();
    const offered = await fetch(`${base}/auth/passkeys/sign-in/options`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(offered.status).toBe(200);
    const binding = /^__session=passkey\.[^;]+/.exec(offered.headers.getSetCookie()[0] ?? "")?.[0] as string;
    expect(binding).toBeDefined();
    const { options } = (await offered.json()) as { options: { challenge: string; rpId: string } };
    const { account } = await accountWithPerson();
    const verified = await fetch(`${base}/auth/verify`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ idToken: account.idToken, project: "account" }),
    });
    const session = /^__session=[^;]+/.exec(verified.headers.getSetCookie()[0] ?? "")?.[0] as string;
    // The longer path's cookie first, as a browser sends them; Hosting forwards only the first.
    const signedIn = await fetch(`${base}/auth/passkeys/sign-in/verify`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie: `${binding}; ${session}` },
      body: JSON.stringify({ credential: authenticator.get(options as never) }),
    });
    expect(signedIn.status).toBe(200);
    expect(await signedIn.json()).toEqual({ customToken: expect.any(String) });
    expect(signedIn.headers.getSetCookie()[0]).toMatch(
      /^__session=; Domain=example\.test; Path=\/auth\/passkeys\/sign-in;/,
    );
  });

  it("opens a session through Hosting, which passes the cookie both ways, and gates with it", async () => {
    const { account, person } = await accountWithPerson({ projects: ["startpage"] });
    const verified = await fetch(`${base}/auth/verify`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ idToken: account.idToken, project: "startpage" }),
    });
    expect(await verified.json()).toMatchObject({ approved: true, personId: person.id });
    const cookie = /^__session=[^;]+/.exec(verified.headers.getSetCookie()[0] ?? "")?.[0] as string;
    expect(cookie).toBeDefined();
    // Hosting forwards only the cookie named __session; another one must not stand in its way.
    const headers = { cookie: `theme=dark; ${cookie}` };
    const refreshed = await fetch(`${base}/auth/session/refresh`, { method: "POST", headers });
    expect(refreshed.status).toBe(200);
    expect(refreshed.headers.get("x-remote-user")).toBe(account.email);
    expect(refreshed.headers.getSetCookie()).toEqual([]);
    const gated = await fetch(`${base}/startpage/notifications`, { headers });
    expect(gated.status).toBe(200);
  });

  it("answers the identity provider's signed claims callback, the signature checked over the body the runtime read", async () => {
    const { account, person } = await accountWithPerson({ projects: ["startpage"] });
    const body = JSON.stringify({ uid: account.uid });
    // eslint-disable-next-line no-restricted-syntax -- the stack's functions run on the real clock
    const t = Math.floor(Date.now() / 1000);
    // The local stack's development secret (README, Local stack).
    const v1 = createHmac("sha256", "dev-idp-signing-secret").update(`${t}.${body}`).digest("hex");
    const res = await fetch(`${base}/auth/idp/claims`, {
      method: "POST",
      headers: { "content-type": "application/json", "idp-signature": `t=${t},v1=${v1}` },
      body,
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      claims: {
        "urn:identity:personId": person.id,
        "urn:identity:status": "approved",
        "urn:identity:role": "user",
        "urn:identity:projects": ["startpage"],
      },
    });
  });

  it.each(identityPages())(
    "serves the identity host's page %s on the second site, with no script but its own files",
    async (path) => {
      const res = await fetch(`${idHost}${path}`);
      expect(res.status).toBe(200);
      const html = await res.text();
      expect(html).toMatch(/<script type="module" src="\/assets\/[a-z-]+-[A-Z0-9]+\.js"><\/script>/);
      // No inline script anywhere: every <script> names its source, on this host.
      expect([...html.matchAll(/<script\b([^>]*)>/g)].filter((m) => !/\bsrc="\/[^/]/.test(m[1] ?? ""))).toEqual([]);
      expect(res.headers.get("cache-control")).toBe("no-cache");
    },
  );
});

type Rewrite = { source: string; function?: { functionId: string; region: string } };
type Site = { target: string; public: string; rewrites: Rewrite[] };

const repo = join(__dirname, "..", "..", "..");
const hostingConfig = JSON.parse(readFileSync(join(repo, "firebase.json"), "utf8")) as { hosting: Site[] };
const firebaserc = JSON.parse(readFileSync(join(repo, ".firebaserc"), "utf8")) as {
  projects: { default: string };
  targets: Record<string, { hosting: Record<string, string[]> }>;
};

function hostingCheck(env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [join(repo, "tools", "hosting.ts"), "--check"], {
    encoding: "utf8",
    env: { ...process.env, ...env },
  });
}

/** Every path the route manifest declares, as a concrete request path (a `**` stands for one segment). */
const ROUTES = (Object.entries(PATHS) as Array<[GroupName, readonly Route[]]>).flatMap(([group, routes]) =>
  routes.map((route) => ({ route, group, probe: route.path.replace(/\/\*\*$/, "/probe") })),
);
const DECLARED = ROUTES.filter((r) => !r.route.appsOnly).map((r) => [r.probe, r.group] as const);
/** What app hosts alone serve (the MCP server and its metadata, on the start page's host). */
const APPS_ONLY = ROUTES.filter((r) => r.route.appsOnly).map((r) => [r.probe, r.group] as const);

describe("the route manifest, through Hosting", () => {
  it.each(DECLARED)("sends %s to the %s function, on the service's host and the identity host", async (path, group) => {
    for (const host of [base, idHost]) {
      const res = await fetch(`${host}${path}`, { redirect: "manual" });
      expect([host, path, res.headers.get("x-function")]).toEqual([host, path, group]);
    }
  });

  it.each(APPS_ONLY)("keeps %s (the %s function) off the service's host and the identity host", async (path, group) => {
    expect(APPS_ONLY.length).toBeGreaterThan(0);
    for (const host of [base, idHost]) {
      const res = await fetch(`${host}${path}`, { method: "POST", redirect: "manual" });
      expect([host, path, res.headers.get("x-function")]).not.toEqual([host, path, group]);
      expect(res.status).toBe(404);
    }
  });

  it("is what firebase.json's rewrites and page headers say (tools/hosting.ts --check)", () => {
    const run = hostingCheck();
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
  });

  it("is checked: a firebase.json that differs from it fails the suite", () => {
    const copy = mkdtempSync(join(tmpdir(), "hosting-"));
    try {
      const stale = structuredClone(hostingConfig);
      (stale.hosting[3] as Site).rewrites.pop();
      writeFileSync(join(copy, "firebase.json"), JSON.stringify(stale));
      const run = hostingCheck({ HOSTING_CONFIG: join(copy, "firebase.json") });
      expect(run.status).toBe(1);
      expect(run.stderr).toMatch(/differ from functions\/src\/paths\.ts/);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});

describe("the Hosting config", () => {
  const sites = hostingConfig.hosting;

  it("has a site for every host of the family, the apex, www and the identity host first", () => {
    expect(sites.map((s) => s.target)).toEqual([...OWN_SITES, ...APP_SITES]);
    // The application hosts are the default APP_HOSTS (docs/configuration.md).
    expect(sites.slice(3).map((s) => s.target)).toEqual(["startpage", "status", "calendar", "location"]);
  });

  it("maps every site to a Hosting site of its own in production and in both local projects", () => {
    const production = firebaserc.projects.default;
    expect(production).toBe("example-identity-prod");
    for (const project of [production, "demo-identity", "demo-identity-test"]) {
      const targets = firebaserc.targets[project]?.hosting ?? {};
      expect(Object.keys(targets).sort()).toEqual(sites.map((s) => s.target).sort());
      const siteIds = Object.values(targets).flat();
      expect(siteIds.every((id) => /^[a-z0-9-]+$/.test(id))).toBe(true);
      expect(new Set(siteIds).size).toBe(siteIds.length);
    }
  });

  it("rewrites only to functions the manifest declares, in their region", () => {
    for (const site of sites) {
      expect(site.rewrites.length).toBeGreaterThan(0);
      for (const rewrite of site.rewrites) {
        expect(rewrite.function?.region).toBe(COMMON_OPTIONS.region);
        expect(Object.keys(GROUPS)).toContain(rewrite.function?.functionId);
      }
    }
  });

  it("serves a public folder that exists for every site", () => {
    for (const site of sites.filter((s) => s.target !== "id")) expect(existsSync(join(repo, site.public))).toBe(true);
    // The identity host's folder is built before each upload (its predeploy).
    expect(sites.find((s) => s.target === "id")?.public).toBe("hosting/id");
  });
});

describe("Hosting headers", () => {
  /** The policy's directives, by name. */
  function csp(res: Response): Map<string, string[]> {
    const value = res.headers.get("content-security-policy") ?? "";
    return new Map(
      value
        .split(";")
        .map((d) => d.trim().split(/\s+/))
        .filter((d) => d[0])
        .map(([name, ...sources]) => [name as string, sources]),
    );
  }

  it.each([
    ["the identity host's sign-in page", () => `${idHost}/`],
    ["the identity host's account page", () => `${idHost}/account`],
    ["the authorise endpoint on the identity host", () => `${idHost}/auth/oidc/authorize`],
    ["the authorise endpoint on the service's host", () => `${base}/auth/oidc/authorize`],
  ])("sets a strict policy, no-referrer and nosniff on %s", async (_, url) => {
    const res = await fetch(url(), { redirect: "manual" });
    const policy = csp(res);
    expect(policy.get("frame-ancestors")).toEqual(["'none'"]);
    expect(policy.get("base-uri")).toEqual(["'none'"]);
    // Scripts only from this host (or none at all), never inline or evaluated.
    const scripts = policy.get("script-src") ?? policy.get("default-src");
    expect(scripts === undefined ? [] : scripts.filter((s) => s !== "'self'" && s !== "'none'")).toEqual([]);
    expect(policy.get("default-src")).toEqual(["'none'"]);
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
  });

  it("lets the logout confirmation on the service's host post to that host alone, and nothing else there post at all", async () => {
    const logout = csp(await fetch(`${base}/auth/oidc/logout`, { redirect: "manual" }));
    const elsewhere = csp(await fetch(`${base}/auth/oidc/authorize`, { redirect: "manual" }));
    expect(logout.get("form-action")).toEqual(["'self'"]);
    expect(elsewhere.get("form-action")).toEqual(["'none'"]);
    // Otherwise the same policy.
    expect(new Map([...logout].filter(([name]) => name !== "form-action"))).toEqual(
      new Map([...elsewhere].filter(([name]) => name !== "form-action")),
    );
  });

  it("lets the identity host's pages call no one but this host and the identity provider", async () => {
    const connect = csp(await fetch(`${idHost}/`)).get("connect-src") ?? [];
    expect(connect[0]).toBe("'self'");
    // Production's policy names the provider's API; the local stack adds its Auth emulator.
    for (const source of connect.slice(1))
      expect(source).toMatch(/^(https:\/\/identitytoolkit\.googleapis\.com|http:\/\/127\.0\.0\.1:\d+)$/);
  });

  it("keeps the service's own answers uncached and private through the identity host's headers", async () => {
    const res = await fetch(`${idHost}/auth/session/refresh`, { method: "POST" });
    expect(res.headers.get("cache-control")).toBe("private, no-store");
  });

  it("caches the hashed assets for good", async () => {
    const html = await (await fetch(`${idHost}/`)).text();
    const asset = /src="(\/assets\/[^"]+)"/.exec(html)?.[1] as string;
    const res = await fetch(`${idHost}${asset}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
  });
});
