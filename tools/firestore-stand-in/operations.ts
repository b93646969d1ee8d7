/**
 * Counts what clients ask of the stand-in, the way Firestore bills it: document reads (a query
 * that matches nothing still costs one), commits and the writes in them. Tests read the counts
 * to prove how many operations a request costs (GET /emulator/v1/operations; DELETE resets).
 */
import type { GrpcHandler } from "./transactions.ts";

export type Operations = {
  documentReads: number;
  queries: number;
  lookups: number;
  commits: number;
  writes: number;
  transactions: number;
  rollbacks: number;
};

const SERVICE = "/google.firestore.v1.Firestore/";

export function zero(): Operations {
  return { documentReads: 0, queries: 0, lookups: 0, commits: 0, writes: 0, transactions: 0, rollbacks: 0 };
}

type StreamCall = {
  request: Record<string, unknown>;
  write: (message: Record<string, unknown>, ...rest: unknown[]) => boolean;
  end: (...rest: unknown[]) => void;
};

/** Wraps the handlers (outermost, so every call is seen) and returns the live counters. */
export function countOperations(handlers: Map<string, GrpcHandler>): Operations {
  const ops = zero();
  const wrap = (method: string, count: (call: StreamCall) => void) => {
    const handler = handlers.get(SERVICE + method);
    if (!handler) throw new Error(`gRPC handler ${method} not found; keep @firestore-emulator/server pinned`);
    const original = handler.func;
    handler.func = (call: StreamCall, ...rest: unknown[]) => {
      count(call);
      original(call, ...rest);
    };
  };
  const beginsTransaction = (call: StreamCall) => call.request.consistency_selector === "new_transaction";

  wrap("BatchGetDocuments", (call) => {
    ops.lookups++;
    if (beginsTransaction(call)) ops.transactions++;
    const write = call.write.bind(call);
    call.write = (message, ...rest) => {
      if (message.found || message.missing) ops.documentReads++;
      return write(message, ...rest);
    };
  });
  for (const method of ["RunQuery", "RunAggregationQuery"]) {
    wrap(method, (call) => {
      ops.queries++;
      if (beginsTransaction(call)) ops.transactions++;
      let documents = 0;
      const write = call.write.bind(call);
      call.write = (message, ...rest) => {
        if (message.document || message.result) documents++;
        return write(message, ...rest);
      };
      const end = call.end.bind(call);
      call.end = (...rest) => {
        ops.documentReads += Math.max(1, documents);
        end(...rest);
      };
    });
  }
  wrap("BeginTransaction", () => {
    ops.transactions++;
  });
  wrap("Commit", (call) => {
    ops.commits++;
    ops.writes += Array.isArray(call.request.writes) ? call.request.writes.length : 0;
  });
  wrap("Rollback", () => {
    ops.rollbacks++;
  });
  return ops;
}
