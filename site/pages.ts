/**
 * The identity host's pages, declared once: where each is served, its title, what it shows before
 * its module has run (or without JavaScript), and its module in `site/src/pages/` (none for the
 * 404 page). site/build.ts builds each into `hosting/id/<path>.html` (Hosting's clean URLs serve it
 * at its path), and tools/hosting.ts gives each path the pages' headers in firebase.json. Adding a
 * page is one entry here and one module.
 */
const NEEDS_SCRIPT =
  "<noscript><p>This page needs JavaScript. Please turn it on for this site and reload the page.</p></noscript>";

export interface Page {
  /** Where the page is served: `/` or `/<name>`; null for the 404 page, which has no address. */
  path: string | null;
  title: string;
  entry: string | null;
  body: string;
}

export const PAGES: Page[] = [
  { path: "/", title: "Sign in", entry: "sign-in", body: NEEDS_SCRIPT },
  { path: "/account", title: "Your account", entry: "account", body: NEEDS_SCRIPT },
  { path: "/request-access", title: "Request access", entry: "request-access", body: NEEDS_SCRIPT },
  { path: "/handoff", title: "Continue to an app", entry: "handoff", body: NEEDS_SCRIPT },
  { path: "/review", title: "Review requests", entry: "review", body: NEEDS_SCRIPT },
  { path: "/people", title: "People", entry: "people", body: NEEDS_SCRIPT },
  { path: "/person", title: "A person", entry: "person", body: NEEDS_SCRIPT },
  { path: "/invite", title: "Invite people", entry: "invite", body: NEEDS_SCRIPT },
  { path: "/audit", title: "Audit trail", entry: "audit", body: NEEDS_SCRIPT },
  { path: "/health", title: "Service health", entry: "health", body: NEEDS_SCRIPT },
  {
    path: null,
    title: "Page not found",
    entry: null,
    body: `<p>There's no page at this address.</p>\n<p><a class="button primary" href="/">Go to sign in</a></p>`,
  },
];

/** The page's file in the built site. */
export function pageFile(page: Page): string {
  if (page.path === null) return "404.html";
  return page.path === "/" ? "index.html" : `${page.path.slice(1)}.html`;
}
