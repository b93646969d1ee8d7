/** Through the Hosting emulator, as browsers reach the service: rewrite → function → express app. */
import { createHmac, randomInt } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { GROUPS, type GroupName } from "../src/groups";
import { COMMON_OPTIONS } from "../src/http/function";
import { passkeyWorld } from "./support/passkeys";
import { accountWithPerson } from "./support/people";

const base = process.env.STACK_BASE_URL as string;
const idHost = process.env.STACK_ID_URL as string;

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

  it.each(["/", "/account", "/request-access", "/handoff"])(
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

const repo = join(__dirname, "..", "..");
const hostingConfig = JSON.parse(readFileSync(join(repo, "firebase.json"), "utf8")) as { hosting: Site[] };
const firebaserc = JSON.parse(readFileSync(join(repo, ".firebaserc"), "utf8")) as {
  projects: { default: string };
  targets: Record<string, { hosting: Record<string, string[]> }>;
};

/** Each path of the contract a browser may call, and the function that serves it (docs/endpoints). */
const CONTRACT: Record<string, GroupName> = {
  "POST /auth/verify": "sessions",
  "POST /auth/session/refresh": "sessions",
  "POST /auth/logout": "sessions",
  "POST /auth/project-access": "sessions",
  "POST /auth/exchange": "sessions",
  "GET /auth/handoff": "sessions",
  "POST /auth/otp/send": "otp",
  "POST /auth/otp/verify": "otp",
  "POST /auth/otp/sign-in": "otp",
  "GET /auth/bridge/": "bridge",
  "GET /auth/bridge/gaming/start": "bridge",
  "GET /auth/bridge/federated/callback": "bridge",
  "POST /auth/passkeys/sign-in/options": "passkeys",
  "POST /auth/passkeys/sign-in/verify": "passkeys",
  "POST /auth/passkeys/register/options": "passkeys",
  "POST /auth/passkeys/register/verify": "passkeys",
  "GET /auth/passkeys": "passkeys",
  "PATCH /auth/passkeys/k1": "passkeys",
  "DELETE /auth/passkeys/k1": "passkeys",
  "GET /.well-known/openid-configuration": "oidc",
  "GET /auth/oidc/authorize": "oidc",
  "POST /auth/oidc/token": "oidc",
  "GET /auth/oidc/userinfo": "oidc",
  "GET /auth/oidc/jwks": "oidc",
  "POST /auth/idp/claims": "claims",
  "GET /auth/people": "people",
  "PATCH /auth/people/p1": "people",
  "POST /startpage/notify": "startpage",
  "GET /startpage/notifications": "startpage",
  "POST /startpage/notifications/read": "startpage",
  "GET /calendar/events": "calendar",
  "GET /calendar/upcoming-locations": "calendar",
  "GET /location": "location",
  "GET /status": "status",
};
const ALL = Object.keys(CONTRACT);
/** What an app's page calls on its own host: its session (signed in at the identity host) and its data. */
const SESSION = ["POST /auth/verify", "POST /auth/session/refresh", "POST /auth/logout", "POST /auth/project-access"];
const SESSION_AND_EXCHANGE = [...SESSION, "POST /auth/exchange"];

/** The browser clients on each host of the family, and the paths they call there. */
const CLIENTS: Record<string, string[]> = {
  // The apex and www serve the whole API (scripts and relying parties use the service's address).
  service: ALL,
  www: ALL,
  // The identity host's pages, and the bridges and OIDC endpoints started there.
  id: ALL,
  startpage: [
    ...SESSION_AND_EXCHANGE,
    "GET /startpage/notifications",
    "POST /startpage/notifications/read",
    "GET /calendar/events",
    "GET /calendar/upcoming-locations",
    "GET /location",
  ],
  status: [...SESSION_AND_EXCHANGE, "GET /status"],
  calendar: [...SESSION_AND_EXCHANGE, "GET /calendar/events", "GET /calendar/upcoming-locations", "GET /location"],
  location: [...SESSION_AND_EXCHANGE, "GET /location", "GET /calendar/upcoming-locations"],
};

/** Hosting's glob: `**` any run of characters, `*` within one segment; the first match wins. */
function rewriteFor(site: Site, path: string): Rewrite | undefined {
  return site.rewrites.find((r) => {
    const pattern = r.source
      .split("**")
      .map((part) =>
        part
          .split("*")
          .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
          .join("[^/]*"),
      )
      .join(".*");
    return new RegExp(`^${pattern}$`).test(path);
  });
}

describe("the Hosting config", () => {
  const sites = hostingConfig.hosting;

  it("has a site for every host of the family, the apex, www and the identity host first", () => {
    expect(sites.map((s) => s.target)).toEqual(["service", "www", "id", "startpage", "status", "calendar", "location"]);
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
        expect({ site: site.target, rewrite }).toEqual({
          site: site.target,
          rewrite: {
            source: expect.stringMatching(/^\//),
            function: { functionId: expect.any(String), region: COMMON_OPTIONS.region },
          },
        });
        expect(Object.keys(GROUPS)).toContain(rewrite.function?.functionId);
      }
    }
  });

  it.each(Object.entries(CLIENTS))(
    "rewrites every path the browser clients on the %s host call to the function that serves it",
    (target, paths) => {
      const site = sites.find((s) => s.target === target) as Site;
      expect(site).toBeDefined();
      const served = paths.map((call) => [call, rewriteFor(site, call.split(" ")[1] as string)?.function?.functionId]);
      expect(served).toEqual(paths.map((call) => [call, CONTRACT[call]]));
    },
  );

  it("rewrites every API path on the identity host as on the service's host, to the same function", () => {
    const [service, www, id] = ["service", "www", "id"].map((t) => sites.find((site) => site.target === t)?.rewrites);
    expect(id).toEqual(service);
    expect(www).toEqual(service);
    expect(id).toContainEqual({ source: "/auth/handoff", function: { functionId: "sessions", region: "us-central1" } });
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
