/**
 * What the webhook inbox (tools/hook-inbox.ts) keeps of a delivery, and its page (`GET /`): each
 * delivery the local stack's apps were sent, newest first, with its event type, whether its
 * signature verifies, its headers and its body. One self-contained page, every text escaped, no
 * script: a reload shows what came since.
 */
import { html } from "./local-provider.ts";

/** The headers kept of each delivery: Standard Webhooks' three, and the body's content type. */
export const WEBHOOK_HEADERS = ["webhook-id", "webhook-timestamp", "webhook-signature", "content-type"] as const;

/** A delivery as the inbox keeps it, and `GET /deliveries` lists it. */
export interface Delivery {
  app: string;
  receivedAt: string;
  headers: Record<(typeof WEBHOOK_HEADERS)[number], string | null>;
  /** The body as JSON where it parses, else its text. */
  body: unknown;
  verified: boolean;
  /** Why it did not verify (the library's words: a missing header, a timestamp off, no signature matching). */
  failure: string | null;
}

const STYLE = [
  "body{font:16px/1.5 system-ui,sans-serif;color:#1a1a1a;background:#fff;margin:0 auto;max-width:60rem;padding:1rem}",
  "ol{list-style:none;padding:0}li{border-top:1px solid #999;padding:.75rem 0}h2{font-size:1.2rem;margin:0}",
  "h3{font-size:1rem;margin:.75rem 0 .25rem}dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:0}",
  "dt{font-weight:600}dd{margin:0;overflow-wrap:anywhere}",
  "pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f2f2f2;padding:.5rem;margin:0}",
  ".ok{color:#0b6b2b}.bad{color:#a4161a}",
  "@media (max-width:36rem){dl{grid-template-columns:1fr;gap:0}dd{margin:0 0 .25rem 1rem}}",
].join("");

/** The event's type, as the body names it. */
function typeOf(body: unknown): string | null {
  const type = typeof body === "object" && body !== null ? (body as { type?: unknown }).type : undefined;
  return typeof type === "string" ? type : null;
}

function list(rows: Array<[string, string]>): string {
  return `<dl>${rows.map(([term, value]) => `<dt>${html(term)}</dt><dd>${value}</dd>`).join("")}</dl>`;
}

function item(d: Delivery): string {
  const type = typeOf(d.body);
  const verdict = d.verified
    ? `<p class="ok"><strong>The signature verifies.</strong></p>`
    : `<p class="bad"><strong>The signature does not verify:</strong> ${html(d.failure ?? "")}</p>`;
  const body = typeof d.body === "string" ? d.body : JSON.stringify(d.body, null, 2);
  return (
    `<li><h2>${html(type ?? "(no event type)")} to ${html(d.app)}</h2>${verdict}` +
    list([
      ["Received", `<time datetime="${html(d.receivedAt)}">${html(d.receivedAt)}</time>`],
      ["App", html(d.app)],
      ["Event type", html(type ?? "none")],
      ["webhook-id", html(d.headers["webhook-id"] ?? "none")],
    ]) +
    `<h3>Headers</h3>` +
    list(Object.entries(d.headers).map(([name, value]) => [name, value === null ? "<em>absent</em>" : html(value)])) +
    `<h3>Body</h3><pre>${html(body)}</pre></li>`
  );
}

export function deliveriesPage(deliveries: Delivery[], secrets: number): string {
  const intro =
    `Deliveries the service posted to the local stack's apps, newest first (the last 500), each checked ` +
    `against ${secrets === 1 ? "the one secret" : `${secrets} secrets`} the inbox was given.`;
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>Webhook inbox (local)</title><style>${STYLE}</style></head><body><main>` +
    `<h1>Webhook inbox (local)</h1><p>${html(intro)} <a href="/">Reload</a> · <a href="/deliveries">As JSON</a></p>` +
    (deliveries.length === 0 ? `<p>No deliveries yet.</p>` : `<ol>${deliveries.map(item).join("")}</ol>`) +
    `</main></body></html>`
  );
}
