/**
 * The page asking a person to let an app that registered itself in (core/oidc/consents), served by
 * the provider at the authorise endpoint on the identity host. No script, as the logout and
 * reconnect pages; no logo, whose address the app chose. The app's name is its own claim, so the
 * page says so, and names where the answer sends the person: the host of the redirect URI, which
 * the app cannot make another's.
 */
import type { Response } from "express";
import { escapeHtml } from "../core/text";
import { OFFLINE_ACCESS } from "../core/oidc/scopes";
import type { Resource } from "../core/model/resource";
import { providerPage } from "./logout-pages";

/** What each of the provider's scopes lets an app do, as the person is told. */
const PROVIDER_SCOPES: Record<string, string> = {
  openid: "Know that it is you (an identifier of your account, the same each time)",
  email: "See your email address",
  profile: "See your name",
  [OFFLINE_ACCESS]: "Keep acting for you while you are away, until you disconnect it",
};

/**
 * What the person is told of each scope asked for: the provider's own, or the resource's. That it
 * knows who they are comes first whether `openid` was asked or not: a resource's token names them too.
 */
export function scopeLines(scopes: readonly string[], resource: Pick<Resource, "name"> | null): string[] {
  return ["openid", ...scopes.filter((s) => s !== "openid")].map(
    (s) => PROVIDER_SCOPES[s] ?? `Use ${resource?.name ?? "the site"} for you, as far as “${s}” allows`,
  );
}

/** Where the answer goes, as the person can check it: a loopback address is an app on this device. */
export function destination(redirectUri: string): string {
  const { hostname } = new URL(redirectUri);
  return hostname === "127.0.0.1" || hostname === "[::1]" ? "an app on this device" : hostname;
}

export function askConsentPage(
  res: Response,
  view: {
    app: string;
    redirectUri: string;
    signedInAs: string;
    resource: Pick<Resource, "name" | "url"> | null;
    scopes: readonly string[];
    /** The host of the metadata document the app's id is, where it is one (core/oidc/metadata-documents). */
    documentHost: string | null;
    idUrl: string;
    action: string;
    fields: Record<string, string>;
  },
): void {
  const app = escapeHtml(view.app);
  const hidden = Object.entries(view.fields)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join("");
  const lines = scopeLines(view.scopes, view.resource)
    .map((line) => `<li>${escapeHtml(line)}</li>`)
    .join("");
  const site =
    view.resource === null
      ? ""
      : `<p>It asks for access to ${escapeHtml(view.resource.name)} (${escapeHtml(view.resource.url)}).</p>`;
  providerPage(
    res,
    `Let ${view.app} use your account?`,
    `<p><strong>${app} is not one of this service's own apps.</strong> ${registeredHow(view.documentHost)}, and its ` +
      `name is its own claim: no one here has checked it. Your answer sends you to ${escapeHtml(destination(view.redirectUri))}.</p>` +
      `<p>You are signed in as ${escapeHtml(view.signedInAs)}.</p>${site}` +
      `<p>If you let it in, it may:</p><ul>${lines}</ul>` +
      `<form method="post" action="${escapeHtml(view.action)}">${hidden}` +
      `<p><button class="button primary" type="submit" name="answer" value="allow">Let ${app} in</button></p>` +
      `<p><button class="button" type="submit" name="answer" value="deny">Don’t let it in</button></p></form>` +
      `<p>You can take it back at any time, on <a href="${escapeHtml(`${view.idUrl}/account`)}">your account</a>.</p>`,
  );
}

/** How the app made itself known: by the document at its id, whose host is what vouches for it, or by registering. */
function registeredHow(documentHost: string | null): string {
  return documentHost === null
    ? "It registered itself"
    : `It made itself known by a document on ${escapeHtml(documentHost)}`;
}

/**
 * An app that registered itself and waits for a reviewer (OIDC_REGISTRATION `reviewed`): the
 * person who tried it is told so, and that they will hear of the decision by mail. Nothing is sent
 * to the app: its redirect URI is its registrant's word alone until a reviewer has looked.
 */
export function waitingForReviewPage(
  res: Response,
  view: { app: string; documentHost: string | null; signedInAs: string; told: boolean },
): void {
  const app = escapeHtml(view.app);
  providerPage(
    res,
    `${view.app} is waiting for review`,
    `<p>${app} is not one of this service's own apps. ${registeredHow(view.documentHost)}, and a reviewer ` +
      `checks such apps before anyone can sign in to them. Until then it can't use your account.</p>` +
      (view.told
        ? `<p>We'll email you at ${escapeHtml(view.signedInAs)} when a reviewer has decided.</p>`
        : `<p>A reviewer will decide; try ${app} again later.</p>`) +
      `<p>You can close this page.</p>`,
  );
}

/**
 * A request of an app that registered itself, refused before the person let it in: said here,
 * rather than sent on to a redirect URI that only its registrant vouches for. No link onward.
 */
export function refusedUnverifiedPage(
  res: Response,
  view: { app: string; redirectUri: string; error: string; description: string | null },
): void {
  providerPage(
    res,
    "This app's request can't go on",
    `<p>${escapeHtml(view.app)}, an app that registered itself with this service, sent you here with a request ` +
      `that can't go on (${escapeHtml(view.error)}${view.description === null ? "" : `: ${escapeHtml(view.description)}`}).</p>` +
      `<p>It asked to send you back to ${escapeHtml(destination(view.redirectUri))}. You can close this page.</p>`,
  );
}
