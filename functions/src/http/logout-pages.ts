/**
 * The pages of RP-initiated logout (core/oidc/logout), served by the provider on the host the
 * request came to: asking the person before signing them out, and saying that they are. No
 * script; they take the identity host's stylesheet (`/page.css`), as its refusal pages do
 * (http/presenters).
 */
import type { Response } from "express";
import { escapeHtml } from "../core/text";

/** A page of the provider's own; `head`: anything more for its head. */
export function providerPage(res: Response, title: string, body: string, head = ""): void {
  res
    .status(200)
    .type("html")
    // `private` as every answer (http/app): Hosting drops Set-Cookie (the sign-out's) from any other.
    .setHeader("Cache-Control", "private, no-store")
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
        `${head}<title>${escapeHtml(title)}</title><link rel="stylesheet" href="/page.css"></head>` +
        `<body><main id="main"><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`,
    );
}

/**
 * Asks before signing out: `fields` go back with the form (the request as it came, and the
 * confirmation bound to this browser's session), to the endpoint it came to.
 */
export function confirmLogoutPage(
  res: Response,
  view: { app: string | null; signedInAs: string; idUrl: string; action: string; fields: Record<string, string> },
): void {
  const who = view.app === null ? "A page" : escapeHtml(view.app);
  const hidden = Object.entries(view.fields)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join("");
  providerPage(
    res,
    "Sign out?",
    `<p>${who} asks to sign you out. You are signed in as ${escapeHtml(view.signedInAs)}.</p>` +
      `<form method="post" action="${escapeHtml(view.action)}">${hidden}` +
      `<p><button class="button primary" type="submit">Sign out</button></p></form>` +
      `<p><a href="${escapeHtml(`${view.idUrl}/account`)}">Stay signed in</a></p>`,
  );
}

/**
 * Signed out by the person's yes on the page above, on the way back to the app. Not a redirect:
 * the yes was a form post, and a browser holds every redirect that answers a form post to the
 * page's `form-action`, which lets the form post to this host alone ('self'), never to the app.
 * A refresh is a navigation of its own, which no `form-action` governs; the link is for a browser
 * that does not follow it.
 */
export function signedOutOnwardPage(res: Response, view: { app: string | null; to: string }): void {
  providerPage(
    res,
    "You are signed out",
    `<p>You are no longer signed in on this browser.</p>` +
      `<p><a class="button primary" href="${escapeHtml(view.to)}">Back to ${view.app === null ? "the app" : escapeHtml(view.app)}</a></p>`,
    `<meta http-equiv="refresh" content="0; url=${escapeHtml(view.to)}">`,
  );
}

/** Signed out, with no app to go back to. */
export function signedOutPage(res: Response, idUrl: string): void {
  providerPage(
    res,
    "You are signed out",
    `<p>You are no longer signed in on this browser.</p>` +
      `<p><a class="button primary" href="${escapeHtml(`${idUrl}/`)}">Sign in again</a></p>`,
  );
}
