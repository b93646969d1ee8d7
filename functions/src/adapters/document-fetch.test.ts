import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { loopbackCertificate } from "../../test/support/certificate";
import {
  cacheDirectives,
  documentFetch,
  DocumentFetchError,
  isPublicAddress,
  pinnedLookup,
  type DocumentFetchOptions,
} from "./document-fetch";

const MAX_BYTES = 1024;
const DOCUMENT = { client_id: "placeholder", client_name: "A client" };

/** What each path of the test servers answers; every request is counted, by path. */
function answer(request: http.IncomingMessage, response: http.ServerResponse): void {
  const json = { "Content-Type": "application/json" };
  switch (request.url) {
    case "/doc":
      response.writeHead(200, { ...json, "Cache-Control": "public, max-age=300" }).end(JSON.stringify(DOCUMENT));
      return;
    case "/doc+json":
      response.writeHead(200, { "Content-Type": "application/example+json; charset=utf-8" }).end("{}");
      return;
    case "/headers":
      response.writeHead(200, json).end(JSON.stringify(request.headers));
      return;
    case "/redirect":
      response.writeHead(302, { Location: `${targetOrigin}/doc` }).end();
      return;
    case "/missing":
      response.writeHead(404, json).end("{}");
      return;
    case "/html":
      response.writeHead(200, { "Content-Type": "text/html" }).end("<p>{}</p>");
      return;
    case "/invalid":
      response.writeHead(200, json).end("{ not json");
      return;
    case "/gzip":
      response.writeHead(200, { ...json, "Content-Encoding": "gzip" }).end("{}");
      return;
    case "/big-length":
      response.writeHead(200, { ...json, "Content-Length": String(MAX_BYTES + 1) }).end(" ".repeat(MAX_BYTES + 1));
      return;
    case "/big-chunked": {
      // No length to refuse up front: the cap has to be counted as the body arrives.
      response.writeHead(200, json);
      response.write("[");
      const drip = setInterval(() => response.write(`${"0,".repeat(100)}`), 5);
      response.on("close", () => clearInterval(drip));
      return;
    }
    case "/truncated":
      // The headers and a first byte arrive, then the connection ends short of the length.
      response
        .writeHead(200, { ...json, "Content-Length": "100" })
        .write("{", () => setTimeout(() => response.destroy(), 20));
      return;
    case "/stall":
      response.writeHead(200, json);
      response.write("{");
      return;
    default:
      response.writeHead(500).end();
  }
}

let ca: string;
let secure: https.Server;
let plain: http.Server;
let target: http.Server;
let secureOrigin: string;
let plainOrigin: string;
let targetOrigin: string;
const requests: string[] = [];
let targetRequests = 0;

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const scheme = server instanceof https.Server ? "https" : "http";
  return `${scheme}://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  const made = loopbackCertificate();
  ca = made.cert;
  const counted = (request: http.IncomingMessage, response: http.ServerResponse) => {
    requests.push(request.url ?? "");
    answer(request, response);
  };
  secure = https.createServer({ key: made.key, cert: ca }, counted);
  plain = http.createServer(counted);
  target = http.createServer((_, response) => {
    targetRequests++;
    response.writeHead(200, { "Content-Type": "application/json" }).end("{}");
  });
  [secureOrigin, plainOrigin, targetOrigin] = await Promise.all([listen(secure), listen(plain), listen(target)]);
});

afterAll(async () => {
  for (const server of [secure, plain, target]) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

function fetcher(options: Partial<DocumentFetchOptions> = {}) {
  return documentFetch({
    timeoutMs: 2_000,
    maxBytes: MAX_BYTES,
    devOrigins: [secureOrigin, plainOrigin, targetOrigin],
    ca,
    ...options,
  });
}

async function failure(work: Promise<unknown>): Promise<string> {
  const err: unknown = await work.then(
    () => new Error("it fetched"),
    (e: unknown) => e,
  );
  if (!(err instanceof DocumentFetchError)) throw err;
  return err.reason;
}

describe("documentFetch", () => {
  it("fetches a document from a development origin over https, with its max-age", async () => {
    await expect(fetcher()(`${secureOrigin}/doc`)).resolves.toEqual({
      json: DOCUMENT,
      maxAgeSeconds: 300,
      noStore: false,
    });
  });

  it("fetches over http only from a development origin, and takes any +json type", async () => {
    await expect(fetcher()(`${plainOrigin}/doc+json`)).resolves.toEqual({
      json: {},
      maxAgeSeconds: null,
      noStore: false,
    });
  });

  it("asks for JSON as is, naming itself and sending no cookie or credentials", async () => {
    const { json } = await fetcher()(`${secureOrigin}/headers`);
    expect(json).toMatchObject({
      accept: "application/json",
      "accept-encoding": "identity",
      "user-agent": "openid-provider-metadata-fetch",
    });
    expect(Object.keys(json as object)).not.toEqual(expect.arrayContaining(["cookie"]));
    expect(Object.keys(json as object)).not.toEqual(expect.arrayContaining(["authorization"]));
  });

  it("refuses the same server when it is not a development origin: it is loopback", async () => {
    const before = requests.length;
    expect(await failure(fetcher({ devOrigins: [] })(`${secureOrigin}/doc`))).toBe("private_address");
    expect(requests.length).toBe(before);
  });

  it.each([
    ["http outside the development origins", () => `${plainOrigin.replace("127.0.0.1", "localhost")}/doc`],
    ["an address that is no URL", () => "not a url"],
    ["a user name in the address", () => `https://someone@${secureOrigin.slice("https://".length)}/doc`],
    ["another scheme", () => "file:///etc/passwd"],
  ])("refuses %s as not https", async (_, url) => {
    expect(await failure(fetcher()(url()))).toBe("not_https");
  });

  it.each(["https://10.0.0.1/doc", "https://[::1]/doc", "https://[::ffff:127.0.0.1]/doc", "https://169.254.169.254/"])(
    "refuses %s without connecting or resolving",
    async (url) => {
      const resolve = jest.fn(async () => [{ address: "8.8.8.8", family: 4 as const }]);
      // A connection attempt to these would take the whole deadline or fail otherwise.
      expect(await failure(fetcher({ devOrigins: [], resolve, timeoutMs: 60_000 })(url))).toBe("private_address");
      expect(resolve).not.toHaveBeenCalled();
    },
  );

  it("refuses a name that resolves to a public and a private address", async () => {
    const resolve = async () => [
      { address: "8.8.8.8", family: 4 as const },
      { address: "10.1.2.3", family: 4 as const },
    ];
    expect(await failure(fetcher({ devOrigins: [], resolve })("https://mixed.example/doc"))).toBe("private_address");
  });

  it("connects through its own resolution: a made-up name resolving to loopback is refused and never reached", async () => {
    const before = requests.length;
    const resolve = jest.fn(async () => [{ address: "127.0.0.1", family: 4 as const }]);
    const port = new URL(secureOrigin).port;
    expect(await failure(fetcher({ devOrigins: [], resolve })(`https://made-up.example:${port}/doc`))).toBe(
      "private_address",
    );
    expect(resolve).toHaveBeenCalledWith("made-up.example");
    expect(resolve).toHaveBeenCalledTimes(1);
    expect(requests.length).toBe(before);
  });

  it("calls a name that does not resolve unresolvable", async () => {
    const resolve = async () => {
      throw Object.assign(new Error("getaddrinfo ENOTFOUND"), { code: "ENOTFOUND" });
    };
    expect(await failure(fetcher({ devOrigins: [], resolve })("https://nowhere.example/doc"))).toBe("unresolvable");
  });

  it("does not follow a redirect, nor request its target", async () => {
    expect(await failure(fetcher()(`${secureOrigin}/redirect`))).toBe("redirect");
    expect(targetRequests).toBe(0);
  });

  it.each([
    ["/missing", "status"],
    ["/html", "not_json"],
    ["/invalid", "not_json"],
    ["/gzip", "not_json"],
    ["/big-length", "too_large"],
    ["/big-chunked", "too_large"],
    ["/truncated", "unreachable"],
  ])("refuses %s as %s", async (path, reason) => {
    expect(await failure(fetcher()(`${secureOrigin}${path}`))).toBe(reason);
  });

  it("gives up on a body that stalls after its headers, at the deadline", async () => {
    expect(await failure(fetcher({ timeoutMs: 300 })(`${secureOrigin}/stall`))).toBe("timeout");
  });

  it("calls a refused connection unreachable", async () => {
    const closed = http.createServer();
    const origin = await listen(closed);
    await new Promise((resolve) => closed.close(resolve));
    expect(await failure(fetcher({ devOrigins: [origin] })(`${origin}/doc`))).toBe("unreachable");
  });

  it("calls a certificate it does not trust unreachable", async () => {
    expect(await failure(fetcher({ ca: undefined })(`${secureOrigin}/doc`))).toBe("unreachable");
  });

  it("keeps the body out of its messages", async () => {
    const err = await fetcher()(`${secureOrigin}/invalid`).catch((e: unknown) => e);
    expect((err as Error).message).not.toContain("not json");
  });
});

describe("pinnedLookup: what the connection is handed", () => {
  it("is what one resolution gave and was checked, though the name answers otherwise afterwards", async () => {
    const answers = [[{ address: "8.8.8.8", family: 4 as const }], [{ address: "127.0.0.1", family: 4 as const }]];
    const resolve = jest.fn(async () => answers.shift()!);
    const lookup = pinnedLookup(resolve);
    const handed = await new Promise((ok, fail) =>
      lookup("rebinding.example", { all: true }, (err, address) => (err ? fail(err) : ok(address))),
    );
    expect(handed).toEqual([{ address: "8.8.8.8", family: 4 }]);
    expect(resolve).toHaveBeenCalledTimes(1);
  });

  it("answers one address, of the family asked for, when not asked for all", async () => {
    const lookup = pinnedLookup(async () => [
      { address: "2606:4700::1111", family: 6 },
      { address: "8.8.8.8", family: 4 },
    ]);
    const handed = await new Promise((ok, fail) =>
      lookup("dual.example", { family: 4 }, (err, address, family) => (err ? fail(err) : ok([address, family]))),
    );
    expect(handed).toEqual(["8.8.8.8", 4]);
  });
});

describe("isPublicAddress", () => {
  it.each([
    ["0.1.2.3"],
    ["10.0.0.1"],
    ["100.64.0.1"],
    ["100.127.255.254"],
    ["127.0.0.1"],
    ["169.254.169.254"],
    ["172.16.0.1"],
    ["172.31.255.255"],
    ["192.0.0.8"],
    ["192.0.2.1"],
    ["192.88.99.1"],
    ["192.168.1.1"],
    ["198.18.0.1"],
    ["198.19.255.255"],
    ["198.51.100.1"],
    ["203.0.113.1"],
    ["224.0.0.1"],
    ["239.255.255.255"],
    ["240.0.0.1"],
    ["255.255.255.255"],
    ["::"],
    ["::1"],
    ["::127.0.0.1"],
    ["::ffff:127.0.0.1"],
    ["::ffff:7f00:1"],
    ["::ffff:10.0.0.1"],
    ["::ffff:169.254.169.254"],
    ["64:ff9b::127.0.0.1"],
    ["64:ff9b::a00:1"],
    ["64:ff9b:1::808:808"],
    ["100::1"],
    ["2001::1"],
    ["2001:1ff:ffff::1"],
    ["2001:db8::1"],
    ["3fff::1"],
    ["5f00::1"],
    ["2002:7f00:1::"],
    ["2002:a9fe:a9fe::1"],
    ["fc00::1"],
    ["fd12:3456::1"],
    ["fe80::1"],
    ["fe80::1%eth0"],
    ["fec0::1"],
    ["ff02::1"],
    ["localhost"],
    ["010.0.0.1"],
    ["1.2.3"],
    ["[::1]"],
    [""],
  ])("%s is not public", (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each([
    ["8.8.8.8"],
    ["1.1.1.1"],
    ["100.63.255.255"],
    ["100.128.0.1"],
    ["172.15.255.255"],
    ["172.32.0.1"],
    ["198.20.0.1"],
    ["223.255.255.255"],
    ["2606:4700::1111"],
    ["::ffff:8.8.8.8"],
    ["64:ff9b::8.8.8.8"],
    ["2002:808:808::1"],
    ["2001:200::1"],
    ["2a00:1450:4001::1"],
  ])("%s is public", (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});

describe("cacheDirectives", () => {
  it.each([
    [undefined, null, false],
    ["", null, false],
    ["max-age=300", 300, false],
    ["public, max-age=60", 60, false],
    ["Max-Age=60, private", 60, false],
    ['max-age="120"', 120, false],
    ["max-age=60, max-age=30", 30, false],
    ["max-age=0", 0, false],
    ["max-age=-1", null, false],
    ["max-age=1.5", null, false],
    ["max-age=abc", null, false],
    ["max-age=", null, false],
    ["max-age", null, false],
    ["max-age=99999999999999999999", 2 ** 31, false],
    ["no-store", null, true],
    ["no-cache", null, true],
    ['no-cache="set-cookie", max-age=60', 60, true],
    ["max-age=600, NO-STORE", 600, true],
    ["s-maxage=60", null, false],
  ])("%j gives max-age %j, noStore %j", (header, maxAgeSeconds, noStore) => {
    expect(cacheDirectives(header)).toEqual({ maxAgeSeconds, noStore });
  });
});
