/**
 * The route manifest: the paths each endpoint group (one Cloud Function, groups.ts) serves, and
 * the Hosting sites that send them to it. Declared here once: `node tools/hosting.ts --write`
 * writes firebase.json's rewrites from it for every site, `npm test` fails while firebase.json
 * says otherwise, and test/platform/hosting.test.ts sends a request to each path through Hosting and checks
 * which function answered. Plain data, imported by the functions, the tests and the tools alike.
 *
 * Every path is served on the service's own sites (its apex, `www`, and the identity host, whose
 * pages call the API on their own origin), but one marked `appsOnly`; `apps` names the
 * application hosts that serve it too.
 */

/** The application hosts' Hosting sites (firebase.json targets), one per app host. */
export const APP_SITES = ["startpage", "status", "calendar", "location"] as const;
/** The service's own Hosting sites: the apex, `www` and the identity host. */
export const OWN_SITES = ["service", "www", "id"] as const;

export type AppSite = (typeof APP_SITES)[number];
export type Site = (typeof OWN_SITES)[number] | AppSite;

/**
 * A Hosting source pattern (`/a/b`, `/a/**`) and the app hosts that serve it besides the service's
 * own sites; with `appsOnly`, on those app hosts alone.
 */
export interface Route {
  path: string;
  apps?: readonly AppSite[];
  appsOnly?: true;
}

/** What every app host offers: the session endpoints a browser app signs in and out with. */
const SESSION_APPS = APP_SITES;
/** The start page's host shows the calendar and where people are; their own hosts show both too. */
const CALENDAR_APPS = ["startpage", "calendar", "location"] as const;

export const PATHS = {
  sessions: [
    { path: "/auth/verify", apps: SESSION_APPS },
    { path: "/auth/session/**", apps: SESSION_APPS },
    { path: "/auth/logout", apps: SESSION_APPS },
    { path: "/auth/project-access", apps: SESSION_APPS },
    { path: "/auth/exchange", apps: SESSION_APPS },
    { path: "/auth/handoff" },
    { path: "/auth/sessions" },
    { path: "/auth/sessions/**" },
  ],
  // A person's own addresses are proved by code: served by `otp`, which holds CODE_PEPPER. Listed
  // before `people`'s /auth/account/**, as Hosting takes the first rewrite that matches.
  otp: [{ path: "/auth/otp/**" }, { path: "/auth/account/addresses" }, { path: "/auth/account/addresses/**" }],
  bridge: [{ path: "/auth/bridge" }, { path: "/auth/bridge/**" }],
  oidc: [
    { path: "/auth/oidc/**" },
    { path: "/.well-known/openid-configuration" },
    { path: "/.well-known/oauth-authorization-server" },
  ],
  people: [
    { path: "/auth/people" },
    { path: "/auth/people/**" },
    { path: "/auth/account" },
    { path: "/auth/account/**" },
    { path: "/auth/invitations" },
    { path: "/auth/invitations/**" },
    { path: "/auth/clients/**" },
    { path: "/auth/audit" },
    { path: "/auth/health" },
  ],
  passkeys: [{ path: "/auth/passkeys" }, { path: "/auth/passkeys/**" }],
  claims: [{ path: "/auth/idp/**" }],
  startpage: [
    { path: "/startpage", apps: ["startpage"] },
    { path: "/startpage/**", apps: ["startpage"] },
  ],
  calendar: [
    { path: "/calendar", apps: CALENDAR_APPS },
    { path: "/calendar/**", apps: CALENDAR_APPS },
  ],
  location: [
    { path: "/location", apps: CALENDAR_APPS },
    { path: "/location/**", apps: CALENDAR_APPS },
  ],
  // The family's MCP server, on the start page's host, and its protected resource metadata at the
  // path RFC 9728 §3.1 makes of its resource URL (MCP_RESOURCE_URL, whose path is `/mcp`).
  mcp: [
    // There alone: a resource is one URL, and its tokens name it (RFC 8707).
    { path: "/mcp", apps: ["startpage"], appsOnly: true },
    { path: "/.well-known/oauth-protected-resource/mcp", apps: ["startpage"], appsOnly: true },
  ],
  status: [
    { path: "/status", apps: ["status"] },
    { path: "/status/**", apps: ["status"] },
  ],
} as const satisfies Record<string, readonly Route[]>;

/** The sites that serve `route`. */
export function sitesOf(route: Route): Site[] {
  return [...(route.appsOnly ? [] : OWN_SITES), ...(route.apps ?? [])];
}
