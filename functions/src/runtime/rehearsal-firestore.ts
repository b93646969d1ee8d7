import { createServer, type Http2Server } from "node:http2";
import type { AddressInfo, Server } from "node:net";

/**
 * The Firestore the platform's build rehearses each bundle against (gcp-build.ts), in the
 * emulator's protocol (gRPC without TLS), from Node's built-ins alone: the build's step runs where
 * nothing but the bundles may be found. Every document it is asked for is missing; it answers
 * BatchGetDocuments, all a gate's lookup makes, and refuses anything else.
 */
export function missingDocuments(): Http2Server {
  const server = createServer();
  server.on("stream", (stream, headers) => {
    const chunks: Buffer[] = [];
    stream.on("data", (c: Buffer) => chunks.push(c));
    stream.on("end", () => {
      const lookup = String(headers[":path"]).endsWith("/BatchGetDocuments");
      // A request's message follows gRPC's 5-byte prefix; its document names are field 2.
      const names = lookup ? stringsOf(Buffer.concat(chunks).subarray(5), 2) : [];
      const frames = names.map((name) => grpcFrame(missingResponse(name)));
      stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
      stream.on("wantTrailers", () => stream.sendTrailers({ "grpc-status": lookup ? "0" : "12" }));
      stream.end(Buffer.concat(frames));
    });
  });
  return server;
}

export async function listening(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

/** BatchGetDocumentsResponse: `missing` (field 2) and `read_time` (field 4, its seconds). */
function missingResponse(name: string): Buffer {
  const bytes = Buffer.from(name);
  const readTime = [0x08, ...varint(1_767_225_600)];
  return Buffer.from([0x12, ...varint(bytes.length), ...bytes, 0x22, ...varint(readTime.length), ...readTime]);
}

function grpcFrame(message: Buffer): Buffer {
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(message.length, 1);
  return Buffer.concat([prefix, message]);
}

/** Protocol buffers' base-128 integers. */
function varint(n: number): number[] {
  const bytes = [];
  for (; n > 0x7f; n = Math.floor(n / 128)) bytes.push((n % 128) | 0x80);
  return [...bytes, n];
}

function readVarint(message: Buffer, at: number): { value: number; next: number } {
  let value = 0;
  for (let shift = 1; ; shift *= 128) {
    const byte = message[at++] as number;
    value += (byte & 0x7f) * shift;
    if (byte < 0x80) return { value, next: at };
  }
}

/** Each value of length-delimited field `field` of a message. */
function stringsOf(message: Buffer, field: number): string[] {
  const found: string[] = [];
  for (let at = 0; at < message.length;) {
    const key = readVarint(message, at);
    const type = key.value % 8;
    at = key.next;
    if (type === 0) at = readVarint(message, at).next;
    else if (type === 1) at += 8;
    else if (type === 5) at += 4;
    else if (type === 2) {
      const length = readVarint(message, at);
      if (Math.floor(key.value / 8) === field)
        found.push(message.toString("utf8", length.next, length.next + length.value));
      at = length.next + length.value;
    } else throw new Error(`wire type ${type} in a Firestore request`);
  }
  return found;
}
