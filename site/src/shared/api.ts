/**
 * The service's endpoints, reached on this host's own origin (Hosting rewrites them to the
 * functions), so the session cookie goes with every call and no cross-origin rule is involved.
 */
import type { Answer } from "./answer";
import { UNREACHABLE } from "./messages";

export type { Answer } from "./answer";

/** No answer at all: the network, or the service, could not be reached. */
export class Unreachable extends Error {
  constructor() {
    super("unreachable");
  }
}

/** A body that is a file (a CSV of invitations) rather than a JSON object: its media type and its text. */
export class FileBody {
  constructor(
    readonly type: string,
    readonly text: string,
  ) {}
}

export async function call(
  method: "GET" | "POST" | "PATCH" | "DELETE",
  path: string,
  body?: Record<string, unknown> | FileBody,
): Promise<Answer> {
  const file = body instanceof FileBody ? body : null;
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      credentials: "same-origin",
      headers: body === undefined ? {} : { "content-type": file?.type ?? "application/json" },
      body: body === undefined ? undefined : (file?.text ?? JSON.stringify(body)),
    });
  } catch {
    throw new Unreachable();
  }
  const text = await res.text().catch(() => "");
  let parsed: unknown = {};
  try {
    parsed = text === "" ? {} : JSON.parse(text);
  } catch {
    // Not JSON (a platform error page): the status says enough.
  }
  const retry = Number(res.headers.get("retry-after"));
  return {
    status: res.status,
    body: typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>) : {},
    retryAfter: Number.isFinite(retry) && retry > 0 ? retry : null,
  };
}

/** Where a page says what became of a request: an alert that can hold a way on. */
export interface Notice {
  show(message: string | null, ...actions: Node[]): void;
}

/** Calls the service: the answer, or null once `notice` has said the service could not be reached. */
export async function ask(
  notice: Notice,
  method: "GET" | "POST" | "PATCH" | "DELETE",
  path: string,
  body?: Record<string, unknown> | FileBody,
): Promise<Answer | null> {
  try {
    return await call(method, path, body);
  } catch (err) {
    if (!(err instanceof Unreachable)) throw err;
    notice.show(UNREACHABLE);
    return null;
  }
}

/** The person behind this browser's session, as POST /auth/session/refresh answers: the service's own type. */
export type { PersonView as Person } from "../../../functions/src/core/people/person-view";
import type { PersonView as Person } from "../../../functions/src/core/people/person-view";

export type Session = { kind: "signed-in"; person: Person } | { kind: "signed-out" } | { kind: "unavailable" };

export async function currentSession(): Promise<Session> {
  try {
    const answer = await call("POST", "/auth/session/refresh");
    if (answer.status === 200 && answer.body.authenticated === true)
      return { kind: "signed-in", person: answer.body as unknown as Person };
    return answer.status === 401 ? { kind: "signed-out" } : { kind: "unavailable" };
  } catch {
    return { kind: "unavailable" };
  }
}
