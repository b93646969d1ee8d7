/**
 * The other ways in: one button per bridge GET /auth/bridge/ lists, and one per provider the
 * federated bridge has configured. A bridge ends back on this page with a custom token in the
 * address; what the sign-in was for (its project) waits in this tab's session storage.
 */
import { call } from "../shared/api";
import { h } from "../shared/ui";

interface Listing {
  id: string;
  label: string;
  start: string;
  idps?: string[];
}

/** How the page names the providers behind the federated bridge. */
const IDP_LABELS: Record<string, string> = {
  search: "Search",
  professional: "Professional network",
  codehost: "Code host",
  devicemaker: "Device maker",
  native: "Native",
};

const PENDING = "signin.pending";

export function rememberProject(redirect: string, project: string): void {
  try {
    sessionStorage.setItem(PENDING, JSON.stringify({ redirect, project }));
  } catch {
    // Storage refused (a private window's quota): the sign-in opens the account's own project.
  }
}

/** The project a bridge sign-in to `redirect` was started for, once; null when none was. */
export function recallProject(redirect: string): string | null {
  try {
    const stored = JSON.parse(sessionStorage.getItem(PENDING) ?? "null") as {
      redirect?: unknown;
      project?: unknown;
    } | null;
    sessionStorage.removeItem(PENDING);
    return stored !== null && stored.redirect === redirect && typeof stored.project === "string"
      ? stored.project
      : null;
  } catch {
    return null;
  }
}

function startLink(label: string, href: string, redirect: string, project: string): HTMLAnchorElement {
  return h("a", { class: "button secondary", href, onclick: () => rememberProject(redirect, project) }, label);
}

let listing: Promise<Listing[]> | null = null;

/** Asks the service for its bridges once, as early as the page likes (alongside its other requests). */
export function listBridges(): Promise<Listing[]> {
  listing ??= call("GET", "/auth/bridge/")
    .then((answer) =>
      answer.status === 200 && Array.isArray(answer.body.providers) ? (answer.body.providers as Listing[]) : [],
    )
    // Without the list the email code still works; no button is better than a broken one.
    .catch(() => []);
  return listing;
}

/** The bridges' buttons, filled in once the service has listed them; nothing when none is usable. */
export function bridgeButtons(redirect: string, project: string): HTMLElement {
  const list = h("div", { class: "bridges" });
  const section = h(
    "section",
    { "aria-labelledby": "other-ways", hidden: true },
    h("h2", { id: "other-ways" }, "Other ways to sign in"),
    list,
  );
  void listBridges().then((providers) => {
    const back = `redirect=${encodeURIComponent(redirect)}`;
    for (const p of providers) {
      if (p.idps === undefined) list.append(startLink(p.label, `${p.start}?${back}`, redirect, project));
      else
        for (const idp of p.idps)
          list.append(
            startLink(
              `Sign in with ${IDP_LABELS[idp] ?? idp}`,
              `${p.start}?idp=${encodeURIComponent(idp)}&${back}`,
              redirect,
              project,
            ),
          );
    }
    section.hidden = list.childElementCount === 0;
  });
  return section;
}
