import type { Request } from "express";
import type { ZodType } from "zod";
import { AppError, type ErrorCode } from "../core/errors";

/** Bodies are small JSON objects; anything larger is refused before it is parsed. */
export const BODY_LIMIT_BYTES = 16 * 1024;

type WithRawBody = Request & { rawBody?: Buffer };

const BODYLESS = new Set(["GET", "HEAD", "OPTIONS"]);

function readStream(req: Request, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(new AppError("body_too_large"));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/**
 * Exactly `application/json`, with at most a `charset=utf-8` parameter (RFC 8259 §8.1: JSON is
 * UTF-8). Other `+json` types are other formats, and a page cannot send this one across sites
 * without a preflight, which the CORS policy answers only for the allowed origins.
 */
export function isJson(req: Request): boolean {
  const [type = "", ...params] = (req.headers["content-type"] ?? "").split(";").map((p) => p.trim().toLowerCase());
  if (type !== "application/json") return false;
  return params.every((p) => p === "" || /^charset\s*=\s*"?utf-8"?$/.test(p));
}

/** Whether the body is declared form-encoded, as OAuth clients send theirs. */
export function isForm(req: Request): boolean {
  return (
    (req.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase() === "application/x-www-form-urlencoded"
  );
}

const parsed = new WeakMap<Request, Record<string, unknown>>();

/**
 * Reads a body with one set of rules wherever the app runs: the Functions runtime
 * has already read the stream into `rawBody`, tests and local servers have not. The bytes are
 * exactly as sent (what a request signature covers); the JSON reader below parses the same ones. Only handlers
 * that take a body call this, so an endpoint without one (logout) never fails on what was sent.
 */
export async function rawBody(req: Request, limit = BODY_LIMIT_BYTES): Promise<Buffer> {
  const declared = Number(req.headers["content-length"] ?? "0");
  if (declared > limit) throw new AppError("body_too_large");
  const raw =
    (req as WithRawBody).rawBody ?? (BODYLESS.has(req.method) ? Buffer.alloc(0) : await readStream(req, limit));
  if (raw.length > limit) throw new AppError("body_too_large");
  return raw;
}

/**
 * A body that is a file rather than an object (a CSV upload): sent as `type`, UTF-8, up to `limit`
 * bytes. Like JSON, such a type cannot be sent across sites without a preflight.
 */
export async function readText(req: Request, type: string, limit: number): Promise<string> {
  const declared = (req.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase();
  if (declared !== type) throw new AppError("unsupported_media_type", `Content-Type must be ${type}`);
  const raw = await rawBody(req, limit);
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(raw);
  } catch {
    throw new AppError("unsupported_media_type", "The file must be UTF-8 text");
  }
}

/** An empty body is `{}`; anything else must be a JSON object sent as application/json. */
export async function readJson(req: Request): Promise<Record<string, unknown>> {
  const cached = parsed.get(req);
  if (cached) return cached;
  const raw = await rawBody(req);
  return parseJsonBody(req, raw);
}

/** `raw` as the JSON object body of `req` (see readJson), for handlers that read the bytes first. */
export function parseJsonBody(req: Request, raw: Buffer): Record<string, unknown> {
  let body: unknown = {};
  if (raw.length > 0) {
    if (!isJson(req)) throw new AppError("unsupported_media_type");
    try {
      body = JSON.parse(raw.toString("utf8"));
    } catch {
      throw new AppError("malformed_json");
    }
    if (body === null || typeof body !== "object" || Array.isArray(body))
      throw new AppError("malformed_json", "Body must be a JSON object");
  }
  parsed.set(req, body as Record<string, unknown>);
  return body as Record<string, unknown>;
}

/**
 * Reads an `application/x-www-form-urlencoded` body, as OAuth clients send it (RFC 6749 §4.1.3),
 * into single values: a parameter sent twice is refused, as the RFC asks.
 */
export async function readForm(req: Request): Promise<Record<string, string>> {
  const raw = await rawBody(req);
  if (raw.length === 0) return {};
  if (!isForm(req))
    throw new AppError("unsupported_media_type", "Content-Type must be application/x-www-form-urlencoded");
  const form: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(raw.toString("utf8"))) {
    if (Object.hasOwn(form, key)) throw new AppError("oauth_invalid_request", `${key} was sent more than once`);
    form[key] = value;
  }
  return form;
}

/**
 * Reads the body and checks it against `schema`; a mismatch is the endpoint's own 400. A strict
 * schema's unknown field is named instead: a misspelt field is the caller's bug to see, not a
 * value silently dropped.
 */
export async function parseBody<T>(req: Request, schema: ZodType<T>, invalid: ErrorCode): Promise<T> {
  return checkBody(await readJson(req), schema, invalid);
}

/** A body already read (one whose signature had to hold first), checked as parseBody checks one. */
export function checkBody<T>(body: unknown, schema: ZodType<T>, invalid: ErrorCode): T {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const unknown = result.error.issues.flatMap((issue) => (issue.code === "unrecognized_keys" ? issue.keys : []));
  if (unknown.length > 0) throw new AppError("unknown_field", `Unknown field: ${unknown.slice(0, 5).join(", ")}`);
  throw new AppError(invalid);
}
