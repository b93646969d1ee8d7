/**
 * Fetches a document at an address someone else names (an OAuth Client ID Metadata Document, whose
 * client_id is its URL), guarded against server-side request forgery: https only, public addresses
 * only, checked after resolution and pinned for the connection, no redirects, a size cap and one
 * deadline for the whole exchange.
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import http from "node:http";
import https from "node:https";
import { BlockList, isIP, isIPv4, isIPv6, type LookupFunction } from "node:net";
import { rootCertificates } from "node:tls";
import { DeadlineExceeded, withDeadline } from "../core/deadline";
import { DocumentFetchError, type DocumentFetch, type DocumentFetchFailure, type FetchedDocument } from "../core/ports";

export interface DocumentFetchOptions {
  /** The whole fetch: DNS, connect, TLS, headers and body. */
  timeoutMs: number;
  /** The body's cap, in bytes. */
  maxBytes: number;
  /** Origins exempt from the https-only and public-address rules (the local stack and tests only), e.g. "https://127.0.0.1:8443" or "http://127.0.0.1:5099". Empty in production. */
  devOrigins: readonly string[];
  /** Extra CA certificates (PEM) to trust, for a test's self-signed https server; undefined in production. */
  ca?: string;
  /** Resolver, for unit tests of the address rule; defaults to dns.lookup(host, { all: true, verbatim: true }). */
  resolve?: (hostname: string) => Promise<{ address: string; family: 4 | 6 }[]>;
}

// The port's own shapes (core/ports), so the rules that call the fetch know its refusals.
export { DocumentFetchError, type DocumentFetch, type DocumentFetchFailure, type FetchedDocument };

type Resolve = NonNullable<DocumentFetchOptions["resolve"]>;

const USER_AGENT = "openid-provider-metadata-fetch";

const systemResolve: Resolve = async (hostname) => {
  const found = await new Promise<LookupAddress[]>((resolve, reject) =>
    dnsLookup(hostname, { all: true, order: "verbatim" }, (err, addresses) => (err ? reject(err) : resolve(addresses))),
  );
  return found.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

export function documentFetch(options: DocumentFetchOptions): DocumentFetch {
  const devOrigins = new Set(options.devOrigins.map((origin) => new URL(origin).origin));
  const lookup = pinnedLookup(options.resolve ?? systemResolve);
  // Given alone, `ca` would replace the public roots; a test's certificate is trusted beside them.
  const ca = options.ca === undefined ? undefined : [...rootCertificates, options.ca];

  return async (address) => {
    const url = target(address, devOrigins);
    const dev = devOrigins.has(url.origin);
    const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
    // Node connects to an address literal without calling `lookup`, so the literal is judged here.
    if (!dev && isIP(host) !== 0 && !isPublicAddress(host)) throw notPublic();
    const abort = new AbortController();
    const request: https.RequestOptions = {
      hostname: host,
      port: url.port === "" ? undefined : Number(url.port),
      path: url.pathname + url.search,
      method: "GET",
      headers: { Accept: "application/json", "Accept-Encoding": "identity", "User-Agent": USER_AGENT },
      // A connection of its own: nothing pooled from another fetch, whose host it was checked for.
      agent: false,
      lookup: dev ? undefined : lookup,
      signal: abort.signal,
      // The extra authority is for the development origins alone; any other host, the public roots.
      ca: dev ? ca : undefined,
    };
    try {
      return await withDeadline(exchange(url.protocol === "https:", request, options.maxBytes), options.timeoutMs);
    } catch (err) {
      if (!(err instanceof DeadlineExceeded)) throw err;
      abort.abort();
      throw new DocumentFetchError("timeout", `the document took longer than ${options.timeoutMs} ms`);
    }
  };
}

/** The URL to fetch: https (or a development origin), with no user name or password to send. */
function target(address: string, devOrigins: ReadonlySet<string>): URL {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw new DocumentFetchError("not_https", "the document's address is not a URL");
  }
  const allowed = url.protocol === "https:" || (url.protocol === "http:" && devOrigins.has(url.origin));
  if (!allowed) throw new DocumentFetchError("not_https", "the document's address must be https");
  if (url.username !== "" || url.password !== "") {
    throw new DocumentFetchError("not_https", "the document's address must not carry a user name or password");
  }
  return url;
}

/**
 * A `lookup` for the connection that resolves the name once, judges every address it gives, and
 * hands the connection exactly those: what was checked is what is connected to, so a name that
 * answers differently a moment later (DNS rebinding) cannot slip a private address in between.
 */
export function pinnedLookup(resolve: Resolve): LookupFunction {
  return (hostname, options, callback) => {
    const checked = async () => {
      let addresses: Awaited<ReturnType<Resolve>>;
      try {
        addresses = await resolve(hostname);
      } catch {
        throw new DocumentFetchError("unresolvable", "the document's host name does not resolve");
      }
      // One private answer among public ones is enough to refuse: which one is used is not ours to choose.
      if (!addresses.every(({ address }) => isPublicAddress(address))) throw notPublic();
      const family = options.family === "IPv4" ? 4 : options.family === "IPv6" ? 6 : options.family;
      const usable = family === 4 || family === 6 ? addresses.filter((a) => a.family === family) : addresses;
      if (usable.length === 0)
        throw new DocumentFetchError("unresolvable", "the document's host name does not resolve");
      return usable;
    };
    checked().then(
      (usable) => (options.all ? callback(null, usable) : callback(null, usable[0]!.address, usable[0]!.family)),
      (err: DocumentFetchError) => callback(err, ""),
    );
  };
}

function notPublic(): DocumentFetchError {
  return new DocumentFetchError("private_address", "the document's address is not a public one");
}

/** One GET, answered with the parsed document or refused with the reason. */
function exchange(secure: boolean, options: https.RequestOptions, maxBytes: number): Promise<FetchedDocument> {
  return new Promise((resolve, reject) => {
    const request = (secure ? https.request : http.request)(options);
    const fail = (reason: DocumentFetchFailure, message: string) => {
      reject(new DocumentFetchError(reason, message));
      request.destroy();
    };
    request.on("error", (err) => reject(failureOf(err)));
    request.on("response", (response) => {
      const status = response.statusCode ?? 0;
      // Never followed: the next address would be one nobody checked, and the document is its URL's.
      if (status >= 300 && status < 400) return fail("redirect", "the document's server answered with a redirect");
      if (status < 200 || status >= 300) return fail("status", `the document's server answered ${status}`);
      const encoding = response.headers["content-encoding"]?.trim().toLowerCase();
      if (encoding !== undefined && encoding !== "" && encoding !== "identity") {
        return fail("not_json", "the document came encoded, though it was asked for as is");
      }
      if (!isJsonType(response.headers["content-type"])) return fail("not_json", "the document is not served as JSON");
      const tooLarge = () => fail("too_large", `the document is larger than ${maxBytes} bytes`);
      if (Number(response.headers["content-length"] ?? 0) > maxBytes) return tooLarge();
      // Counted as it arrives: a body without a length, or longer than its length says, stops at the cap.
      const chunks: Buffer[] = [];
      let size = 0;
      response.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) return tooLarge();
        chunks.push(chunk);
      });
      // Also how a connection that ends short of the body's length shows itself.
      response.on("error", () => reject(unreachable()));
      response.on("end", () => {
        let json: unknown;
        try {
          json = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks)));
        } catch {
          return reject(new DocumentFetchError("not_json", "the document is not valid JSON"));
        }
        resolve({ json, ...cacheDirectives(response.headers["cache-control"]) });
      });
    });
    request.end();
  });
}

function isJsonType(contentType: string | undefined): boolean {
  const type = contentType?.split(";")[0]?.trim().toLowerCase() ?? "";
  const slash = type.indexOf("/");
  return type === "application/json" || (slash > 0 && type.slice(slash + 1).endsWith("+json"));
}

function failureOf(err: unknown): DocumentFetchError {
  if (err instanceof DocumentFetchError) return err;
  const code = (err as { code?: unknown } | null)?.code;
  if (code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "ENODATA") {
    return new DocumentFetchError("unresolvable", "the document's host name does not resolve");
  }
  return unreachable();
}

function unreachable(): DocumentFetchError {
  return new DocumentFetchError("unreachable", "the document's server could not be reached");
}

const PRIVATE_V4 = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local, where cloud metadata servers answer (169.254.169.254)
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, and the broadcast address 255.255.255.255 with it
] as const) {
  PRIVATE_V4.addSubnet(network, prefix, "ipv4");
}

/** IPv6 ranges that are not public, as [first bytes, prefix length in bits]. */
const PRIVATE_V6: [Uint8Array, number][] = (
  [
    // The whole of ::/8 (the unspecified and loopback addresses, the old IPv4-compatible form) but
    // for ::ffff:0:0/96, whose embedded IPv4 address is judged before this list is read.
    ["::", 8],
    ["64:ff9b:1::", 48], // local-use NAT64: not globally reachable, and split where only its network knows
    ["100::", 64], // discard-only
    ["2001::", 23], // IETF protocol assignments (Teredo among them)
    ["2001:db8::", 32], // documentation
    ["3fff::", 20], // documentation (RFC 9637)
    ["5f00::", 16], // segment routing (SRv6) SIDs: not globally routed
    ["fc00::", 7], // unique local
    ["fe80::", 10], // link-local
    ["fec0::", 10], // site-local
    ["ff00::", 8], // multicast
  ] as const
).map(([network, prefix]) => [ipv6Bytes(network)!, prefix]);

/**
 * Whether an address is one on the public internet, the only kind a fetch may connect to. An IPv6
 * address that carries an IPv4 one (mapped, NAT64, 6to4) reaches that IPv4 address, so that is the
 * one judged. Anything that does not parse is not public.
 */
export function isPublicAddress(address: string): boolean {
  if (isIPv4(address)) return !PRIVATE_V4.check(address, "ipv4");
  const bytes = ipv6Bytes(address);
  if (bytes === null) return false;
  const embedded = embeddedIPv4(bytes);
  if (embedded !== null) return !PRIVATE_V4.check(embedded, "ipv4");
  return !PRIVATE_V6.some(([network, prefix]) => startsWith(bytes, network, prefix));
}

/** The IPv4 address an IPv6 one delivers to (mapped, the well-known NAT64 prefix, 6to4), or null. */
function embeddedIPv4(bytes: Uint8Array): string | null {
  const at = (i: number) => Array.from(bytes.subarray(i, i + 4)).join(".");
  if (startsWith(bytes, MAPPED, 96) || startsWith(bytes, NAT64, 96)) return at(12);
  if (startsWith(bytes, SIX_TO_FOUR, 16)) return at(2);
  return null;
}

const MAPPED = ipv6Bytes("::ffff:0:0")!;
const NAT64 = ipv6Bytes("64:ff9b::")!;
const SIX_TO_FOUR = ipv6Bytes("2002::")!;

function startsWith(bytes: Uint8Array, network: Uint8Array, prefix: number): boolean {
  for (let bit = 0; bit < prefix; bit++) {
    const mask = 0x80 >> (bit % 8);
    if ((bytes[bit >> 3]! & mask) !== (network[bit >> 3]! & mask)) return false;
  }
  return true;
}

/** The 16 bytes of an IPv6 address in any of its textual forms; null for anything else (a zone included). */
function ipv6Bytes(address: string): Uint8Array | null {
  if (!isIPv6(address) || address.includes("%")) return null;
  let text = address;
  const tail = text.slice(text.lastIndexOf(":") + 1);
  if (isIPv4(tail)) {
    const [a, b, c, d] = tail.split(".").map(Number) as [number, number, number, number];
    text = `${text.slice(0, text.length - tail.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, rest] = text.split("::") as [string, string | undefined];
  const before = head === "" ? [] : head.split(":");
  const after = rest === undefined || rest === "" ? [] : rest.split(":");
  const groups =
    rest === undefined ? before : [...before, ...Array<string>(8 - before.length - after.length).fill("0"), ...after];
  if (groups.length !== 8) return null;
  const bytes = new Uint8Array(16);
  groups.forEach((group, i) => {
    const value = parseInt(group, 16);
    bytes[2 * i] = value >> 8;
    bytes[2 * i + 1] = value & 0xff;
  });
  return bytes;
}

/**
 * What a response's Cache-Control allows: its max-age (the smallest when it is given more than
 * once; a malformed one is ignored) and whether it may be kept at all (no-store, and no-cache,
 * which a cache without revalidation can only honour by not keeping it).
 */
export function cacheDirectives(cacheControl: string | undefined): { maxAgeSeconds: number | null; noStore: boolean } {
  let maxAgeSeconds: number | null = null;
  let noStore = false;
  for (const directive of (cacheControl ?? "").split(",")) {
    const eq = directive.indexOf("=");
    const name = (eq < 0 ? directive : directive.slice(0, eq)).trim();
    const value = eq < 0 ? undefined : directive.slice(eq + 1).trim();
    switch (name.toLowerCase()) {
      case "no-store":
      case "no-cache":
        noStore = true;
        break;
      case "max-age": {
        const digits = value?.replace(/^"(.*)"$/, "$1");
        if (digits === undefined || !/^\d+$/.test(digits)) break;
        // RFC 9111 §1.2.2: a delta too large to hold is taken as 2^31 seconds.
        const seconds = Math.min(Number(digits), 2 ** 31);
        maxAgeSeconds = maxAgeSeconds === null ? seconds : Math.min(maxAgeSeconds, seconds);
        break;
      }
    }
  }
  return { maxAgeSeconds, noStore };
}
