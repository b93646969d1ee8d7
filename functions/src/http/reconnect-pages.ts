/**
 * The pages of letting a disconnected app in again (core/oidc/disconnects), served by the provider
 * at the authorise endpoint on the identity host: asking the person, and going on to the app once
 * they said yes. No script, as the logout pages (http/logout-pages).
 */
import type { Response } from "express";
import { escapeHtml } from "../core/text";
import { providerPage } from "./logout-pages";

/**
 * Asks before an app the person disconnected gets a code again: `fields` go back with the form
 * (the request as it came, and the confirmation bound to this session and app), to `action`.
 */
export function confirmReconnectPage(
  res: Response,
  view: { app: string; signedInAs: string; idUrl: string; action: string; fields: Record<string, string> },
): void {
  const app = escapeHtml(view.app);
  const hidden = Object.entries(view.fields)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join("");
  providerPage(
    res,
    `Let ${view.app} sign you in again?`,
    `<p>You disconnected ${app} from your account. It asks to sign you in as ${escapeHtml(view.signedInAs)}.</p>` +
      `<form method="post" action="${escapeHtml(view.action)}">${hidden}` +
      `<p><button class="button primary" type="submit">Let ${app} in</button></p></form>` +
      `<p><a href="${escapeHtml(`${view.idUrl}/account`)}">Not now</a></p>`,
  );
}

/**
 * On to the app with its code, after the person's yes. Not a redirect: the yes was a form post,
 * and a browser holds every redirect that answers a form post to the page's `form-action`, which
 * lets the form post to this host alone. A refresh is a navigation of its own; the link is for a
 * browser that does not follow it.
 */
export function onToAppPage(res: Response, view: { app: string; to: string }): void {
  providerPage(
    res,
    `Back to ${view.app}`,
    `<p><a class="button primary" href="${escapeHtml(view.to)}">Continue to ${escapeHtml(view.app)}</a></p>`,
    `<meta http-equiv="refresh" content="0; url=${escapeHtml(view.to)}">`,
  );
}
