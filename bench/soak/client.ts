/**
 * Every request the soak sends to the service goes through `Recorder.call`, which keeps what was
 * sent and answered (endpoint, status, error, reason, timing, Firestore epoch) for the report and
 * the invariants. Calls to the Auth emulator and the inbox are the harness acting as a browser
 * or a mailbox, counted but not judged.
 */

/** A caller gives up after this long (as a browser tab would); recorded as unanswered, status 0. */
export const NO_ANSWER_MS = 15_000;

export interface Exchange {
  endpoint: string;
  /** ms since the soak started. */
  start: number;
  end: number;
  /** 0 when no answer came (timeout or connection failure). */
  status: number;
  error: string | null;
  reason: string | null;
  /** A JSON object whose `error` is a string: the contract's shape for a refusal. */
  shaped: boolean;
  /** Answered as an HTML page (the OIDC authorise endpoint and the bridges are browser pages); `error` is then its heading. */
  html: boolean;
  /** Which Firestore process served it: the data of one does not survive into the next. */
  epoch: number;
  /** The address or code the request is about, for invariants that follow one of them. */
  key?: string;
  note?: string;
  /** The client network it came from (its X-Forwarded-For), for the send budgets. */
  network?: string;
}

export interface Answer {
  status: number;
  body: any;
  setCookie: string[];
  /** The Location header of a redirect (redirects are not followed). */
  location: string | null;
  exchange: Exchange;
}

export class Recorder {
  readonly exchanges: Exchange[] = [];
  readonly helpers = { idp: 0, inbox: 0, harnessFirestore: 0, bridgeProvider: 0 };
  private readonly t0 = performance.now();
  private readonly base: string;
  private readonly epoch: () => number;

  constructor(base: string, epoch: () => number) {
    this.base = base;
    this.epoch = epoch;
  }

  now(): number {
    return performance.now() - this.t0;
  }

  /** `body` goes as JSON, `form` as application/x-www-form-urlencoded. */
  async call(
    method: string,
    path: string,
    options: {
      body?: unknown;
      form?: Record<string, string>;
      headers?: Record<string, string>;
      key?: string;
      note?: string;
      network?: string;
    } = {},
  ): Promise<Answer> {
    const headers: Record<string, string> = { ...options.headers };
    // As Firebase Hosting passes the client's address on.
    if (options.network !== undefined) headers["x-forwarded-for"] = options.network;
    if (options.body !== undefined) headers["content-type"] = "application/json";
    if (options.form !== undefined) headers["content-type"] = "application/x-www-form-urlencoded";
    const payload =
      options.form !== undefined
        ? new URLSearchParams(options.form).toString()
        : options.body === undefined
          ? undefined
          : JSON.stringify(options.body);
    const exchange: Exchange = {
      endpoint: `${method} ${path.split("?")[0]}`,
      start: this.now(),
      end: 0,
      status: 0,
      error: null,
      reason: null,
      shaped: false,
      html: false,
      epoch: this.epoch(),
      key: options.key,
      note: options.note,
      network: options.network,
    };
    this.exchanges.push(exchange);
    let body: any = null;
    let setCookie: string[] = [];
    let location: string | null = null;
    try {
      const res = await fetch(this.base + path, {
        method,
        headers,
        body: payload,
        redirect: "manual",
        signal: AbortSignal.timeout(NO_ANSWER_MS),
      });
      const text = await res.text();
      exchange.status = res.status;
      setCookie = res.headers.getSetCookie();
      location = res.headers.get("location");
      exchange.html = (res.headers.get("content-type") ?? "").startsWith("text/html");
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    } catch (err) {
      exchange.error =
        err instanceof Error && err.name === "TimeoutError"
          ? `(no answer within ${NO_ANSWER_MS / 1000} s)`
          : `(no answer: ${err instanceof Error ? err.message : String(err)})`;
    }
    exchange.end = this.now();
    if (body !== null && typeof body === "object" && !Array.isArray(body)) {
      if (typeof body.error === "string") exchange.error = body.error;
      if (typeof body.reason === "string") exchange.reason = body.reason;
      exchange.shaped = typeof body.error === "string";
    }
    if (exchange.html && typeof body === "string")
      exchange.error = /<h1>([^<]*)<\/h1>/.exec(body)?.[1]?.replace(/&#39;/g, "'") ?? null;
    return { status: exchange.status, body, setCookie, location, exchange };
  }
}

export function sessionCookie(setCookie: string[]): string | null {
  const match = setCookie.map((c) => /^__session=([^;]+)/.exec(c)).find((m) => m !== null);
  return match?.[1] ? `__session=${match[1]}` : null;
}

/** The bridge's state cookie (a `__session` of its own, scoped to /auth/bridge), as a Cookie header. */
export function bridgeStateCookie(setCookie: string[]): string | null {
  return setCookie.map((c) => /^__session=bridge\.[^;]+/.exec(c)?.[0]).find((c) => c !== undefined) ?? null;
}

/** The Auth emulator's REST API, as the identity host's pages call it. */
export async function identityToolkit(
  recorder: Recorder,
  authHost: string,
  method: string,
  body: unknown,
): Promise<Record<string, unknown>> {
  recorder.helpers.idp++;
  const res = await fetch(`http://${authHost}/identitytoolkit.googleapis.com/v1/accounts:${method}?key=soak`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(NO_ANSWER_MS),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${method}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

export async function idTokenFor(
  recorder: Recorder,
  authHost: string,
  credential: { email: string; password: string } | { customToken: string },
): Promise<string> {
  const json =
    "customToken" in credential
      ? await identityToolkit(recorder, authHost, "signInWithCustomToken", {
          token: credential.customToken,
          returnSecureToken: true,
        })
      : await identityToolkit(recorder, authHost, "signInWithPassword", { ...credential, returnSecureToken: true });
  return String(json.idToken);
}

interface Mail {
  id: string;
  text: string;
  to: Array<{ address: string }>;
}

/**
 * The code mailed to `address`, read from maildev and deleted there (so the inbox stays small).
 * null when no mail comes within `waitMs`, e.g. while maildev is down.
 */
export async function mailedCode(
  recorder: Recorder,
  mailUrl: string,
  address: string,
  waitMs = 5000,
): Promise<string | null> {
  const deadline = performance.now() + waitMs;
  while (performance.now() < deadline) {
    recorder.helpers.inbox++;
    const mails = await fetch(`${mailUrl}/email`, { signal: AbortSignal.timeout(5000) })
      .then((r) => (r.ok ? (r.json() as Promise<Mail[]>) : []))
      .catch(() => [] as Mail[]);
    const mail = mails.find((m) => (m.to ?? []).some((t) => t.address.toLowerCase() === address));
    const code = mail ? /: ([0-9]{6})\n/.exec(mail.text)?.[1] : undefined;
    if (mail && code) {
      await fetch(`${mailUrl}/email/${mail.id}`, { method: "DELETE", signal: AbortSignal.timeout(5000) }).catch(
        () => undefined,
      );
      return code;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return null;
}
