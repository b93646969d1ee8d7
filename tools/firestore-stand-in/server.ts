/**
 * Starts `@firestore-emulator/server` behind our fixes: serialised transactions, atomic commits
 * with replace/delete semantics, document lookup that does not slow with a collection's size,
 * and the official emulator's HTTP reset on the gRPC port.
 *
 * We own the listening socket instead of calling the library's start(): a plain-text HTTP/2
 * server cannot also speak HTTP/1 (Node ignores allowHTTP1 without TLS), so each connection is
 * routed by its first bytes. gRPC clients open with the HTTP/2 preface ("PRI * HTTP/2.0") and
 * are injected into the grpc-js server; anything else goes to a small HTTP/1 server. Owning the
 * socket also means a taken port fails loudly instead of inside grpc-js's bind retries.
 */
import { createServer as createHttpServer } from "node:http";
import { type Socket, createServer as createNetServer } from "node:net";

import { FirestoreServer } from "@firestore-emulator/server";
import { type Server as GrpcServer, ServerCredentials } from "@grpc/grpc-js";

import { lookUpDocumentsInPlace } from "./documents.ts";
import { queryNestedFilters } from "./queries.ts";
import { httpHandler } from "./http.ts";
import { countOperations } from "./operations.ts";
import { loadState, saveState } from "./persist.ts";
import { type GrpcHandler, serialiseTransactions } from "./transactions.ts";
import { TxLock } from "./tx-lock.ts";

export type StandInOptions = {
  host?: string;
  port?: number;
  lockTimeoutMs?: number;
  /** Where the documents are kept between runs (persist.ts): loaded at start unless `fresh`. */
  dataFile?: string;
  fresh?: boolean;
};
export type StandIn = {
  host: string;
  port: number;
  /** How many documents were loaded from the data file at start. */
  loaded: number;
  /** Writes every document to the data file (whole, or not at all); how many. */
  save(): number;
  close(): Promise<void>;
  reset(): void;
};

const HTTP2_PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

export async function startStandIn(options: StandInOptions = {}): Promise<StandIn> {
  const host = options.host ?? "127.0.0.1";
  const wantedPort = options.port ?? 8080;
  lookUpDocumentsInPlace();
  queryNestedFilters();
  const library = new FirestoreServer();
  const reset = () => library.state.clear();
  const { dataFile } = options;
  const loaded = dataFile !== undefined && options.fresh !== true ? loadState(library.state, dataFile) : 0;
  const save = () => (dataFile === undefined ? 0 : saveState(library.state, dataFile));

  // The library keeps its grpc-js server and that server's handler map private; both are what
  // the notes call leaning on internals, guarded by the exact pin and the store-contract tests.
  const grpc = (library as unknown as { server: GrpcServer }).server;
  const handlers = (grpc as unknown as { handlers?: Map<string, GrpcHandler> }).handlers;
  if (!(handlers instanceof Map)) throw new Error("grpc-js internals changed (Server#handlers); keep versions pinned");

  const timeoutMs = options.lockTimeoutMs ?? 10_000;
  const lock = new TxLock({
    timeoutMs,
    onTimeout: (id) =>
      console.error(
        `firestore stand-in: transaction ${id} held the lock ${timeoutMs} ms without ending; released it (its commit will be ABORTED)`,
      ),
  });
  serialiseTransactions(handlers, library.state, lock);
  const operations = countOperations(handlers);

  const grpcInjector = grpc.createConnectionInjector(ServerCredentials.createInsecure());
  const http1 = createHttpServer(httpHandler(reset, operations));
  const sockets = new Set<Socket>();
  const listener = createNetServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    // A client resetting the connection must not crash the process; the protocol servers
    // attach their own handlers once the socket is handed over.
    socket.on("error", () => {});
    routeByFirstBytes(socket, {
      http2: () => grpcInjector.injectConnection(socket),
      http1: () => {
        http1.emit("connection", socket);
        // The HTTP/1 parser reads the native handle directly; resuming replays what we peeked.
        socket.resume();
      },
    });
  });

  await new Promise<void>((resolve, reject) => {
    listener.once("error", reject);
    listener.listen(wantedPort, host, () => {
      listener.off("error", reject);
      resolve();
    });
  });
  const address = listener.address();
  const port = typeof address === "object" && address ? address.port : wantedPort;

  let closing: Promise<void> | null = null;
  const close = () => {
    closing ??= new Promise<void>((resolve) => {
      lock.dispose();
      listener.close(() => resolve());
      for (const socket of sockets) socket.destroy();
      grpcInjector.destroy();
      library.stop();
      http1.close();
    });
    return closing;
  };
  return { host, port, loaded, save, close, reset };
}

function routeByFirstBytes(socket: Socket, to: { http2: () => void; http1: () => void }): void {
  let head = Buffer.alloc(0);
  const onData = (chunk: Buffer) => {
    head = Buffer.concat([head, chunk]);
    const text = head.toString("latin1");
    const undecided = text.length < HTTP2_PREFACE.length && HTTP2_PREFACE.startsWith(text);
    if (undecided) return;
    socket.off("data", onData);
    socket.pause();
    socket.unshift(head);
    (text.startsWith(HTTP2_PREFACE) ? to.http2 : to.http1)();
  };
  socket.on("data", onData);
}
