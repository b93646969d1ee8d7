/**
 * The platform build's step (`npm run gcp-build`, which the build runs with the runtime's own Node
 * after installing the dependencies): each function's code cache (bundles.ts). For every group of
 * the registry (groups.ts), a fresh process runs the group's bundle once, as an instance's first
 * request would (http/rehearsal.ts, then a request through its handler), and writes V8's code of
 * the bundle as it then stands, every function that ran compiled. Instances run the same Node, so
 * V8 takes it. The session key and the Firestore the rehearsal uses are the build's own, made here.
 */
import { spawn } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { writeFileSync } from "node:fs";
import { createServer, request } from "node:http";
import { createServer as createHttp2Server, type Http2Server } from "node:http2";
import type { AddressInfo } from "node:net";
import { codeCacheFile, runBundle } from "./bundles";
import { GROUPS } from "./groups";

const listening = async <T extends { listen: (port: number, host: string, done: () => void) => unknown }>(
  server: T,
) => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return ((server as unknown as { address: () => AddressInfo }).address() as AddressInfo).port;
};

/** In the bundle's own process: the rehearsal, one request through the handler, then V8's code. */
async function rehearse(name: string): Promise<void> {
  const { exports: bundle, script } = runBundle(name);
  await bundle.rehearse();
  const server = createServer(bundle.handler);
  const port = await listening(server);
  await new Promise<void>((resolve, reject) =>
    request({ host: "127.0.0.1", port, path: "/" }, (res) => res.resume().on("end", resolve))
      .on("error", reject)
      .end(),
  );
  server.close();
  writeFileSync(codeCacheFile(name), script.createCachedData());
}

/** Protocol buffers' base-128 integers. */
function varint(n: number): number[] {
  const bytes = [];
  for (; n > 0x7f; n = Math.floor(n / 128)) bytes.push((n % 128) | 0x80);
  return [...bytes, n];
}

/** Each value of a length-delimited field of a message (the request's document names are field 2). */
function stringsOf(message: Buffer, field: number): string[] {
  const found: string[] = [];
  for (let at = 0; at < message.length;) {
    let key = 0;
    for (let shift = 1; ; shift *= 128) {
      const byte = message[at++] as number;
      key += (byte & 0x7f) * shift;
      if (byte < 0x80) break;
    }
    const type = key % 8;
    let length = 0;
    if (type === 0) while ((message[at++] as number) >= 0x80);
    else if (type === 1 || type === 5) at += type === 1 ? 8 : 4;
    else if (type === 2) {
      for (let shift = 1; ; shift *= 128) {
        const byte = message[at++] as number;
        length += (byte & 0x7f) * shift;
        if (byte < 0x80) break;
      }
      if (Math.floor(key / 8) === field) found.push(message.toString("utf8", at, at + length));
      at += length;
    } else throw new Error(`wire type ${type} in a Firestore request`);
  }
  return found;
}

/**
 * The rehearsal's Firestore, in the emulator's protocol (gRPC without TLS): every document it is
 * asked for is missing. It answers BatchGetDocuments, all a gate's lookup makes.
 */
function missingDocuments(): Http2Server {
  const server = createHttp2Server();
  server.on("stream", (stream, headers) => {
    const chunks: Buffer[] = [];
    stream.on("data", (c: Buffer) => chunks.push(c));
    stream.on("end", () => {
      const lookup = String(headers[":path"]).endsWith("/BatchGetDocuments");
      const names = lookup ? stringsOf(Buffer.concat(chunks).subarray(5), 2) : [];
      const readTime = [0x22, 6, 0x08, ...varint(1_767_225_600)];
      const frames = names.map((doc) => {
        const name = Buffer.from(doc);
        const message = Buffer.from([0x12, ...varint(name.length), ...name, ...readTime]);
        const prefix = Buffer.alloc(5);
        prefix.writeUInt32BE(message.length, 1);
        return Buffer.concat([prefix, message]);
      });
      stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
      stream.on("wantTrailers", () => stream.sendTrailers({ "grpc-status": lookup ? "0" : "12" }));
      stream.end(Buffer.concat(frames));
    });
  });
  return server;
}

async function rehearseEach(): Promise<void> {
  const firestore = missingDocuments();
  const port = await listening(firestore);
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const env = {
    ...process.env,
    GCLOUD_PROJECT: process.env.GCLOUD_PROJECT ?? "rehearsal",
    FIRESTORE_EMULATOR_HOST: `127.0.0.1:${port}`,
    // Nothing outside the build: no credentials are looked for.
    METADATA_SERVER_DETECTION: "none",
    SESSION_KEYS: JSON.stringify([{ ...privateKey.export({ format: "jwk" }), kid: "rehearsal", alg: "RS256" }]),
  };
  try {
    for (const name of Object.keys(GROUPS)) {
      // A process of its own for each, started as an instance is: nothing of another bundle in it.
      const args = [...process.execArgv, __filename, name];
      const run = await new Promise<number | null>((resolve) =>
        spawn(process.execPath, args, { env, stdio: "inherit" }).on("exit", resolve),
      );
      if (run !== 0) throw new Error(`the ${name} bundle's rehearsal failed (exit ${run})`);
    }
  } finally {
    firestore.close();
  }
  console.log(`code cache: ${Object.keys(GROUPS).length} bundles rehearsed with Node ${process.version}`);
}

const group = process.argv[2];
(group === undefined ? rehearseEach() : rehearse(group)).then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
