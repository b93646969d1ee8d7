/**
 * Wraps the library's gRPC handlers so read-write transactions are serialised.
 *
 * The Node SDK begins a read-write transaction lazily, on its first read (BatchGetDocuments,
 * RunQuery or RunAggregationQuery with `new_transaction`), or with BeginTransaction on some
 * paths, and ends it with Commit or Rollback carrying the id. The library answers all of these
 * with one constant id and no isolation, so we take the FIFO lock where a transaction begins,
 * hand out our own id in its place, and release on Commit/Rollback (or the lock's timeout).
 * Plain commits queue for the same lock, so they cannot land between a transaction's read and
 * its commit. Plain reads never wait.
 */
import {
  BeginTransactionResponse,
  CommitResponse,
} from "@firestore-emulator/proto/dist/google/firestore/v1/firestore.js";
import type { FirestoreState } from "@firestore-emulator/server";
import { status } from "@grpc/grpc-js";

import { CommitError, type CommitResult, type ProtoWrite, commitWrites } from "./commit.ts";
import type { TxLock } from "./tx-lock.ts";

/** grpc-js's internal handler record (Server#handlers values), whose calls it types no further. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- grpc-js's own untyped handler signature
export type GrpcHandler = { func: (...args: any[]) => void; path: string };

type GrpcError = { code: number; details: string };
type Callback = (error: GrpcError | null, response?: unknown) => void;
type ReadRequest = {
  consistency_selector: string;
  transaction: Uint8Array;
  new_transaction: { mode: string };
};
type ReadCall = {
  request: ReadRequest;
  cancelled: boolean;
  write: (message: { transaction?: Uint8Array }, ...rest: unknown[]) => boolean;
  emit: (event: "error", error: GrpcError) => boolean;
};
type UnaryCall<Request> = { request: Request; cancelled: boolean };

const SERVICE = "/google.firestore.v1.Firestore/";

export function serialiseTransactions(handlers: Map<string, GrpcHandler>, state: FirestoreState, lock: TxLock): void {
  const handler = (method: string): GrpcHandler => {
    const found = handlers.get(SERVICE + method);
    if (!found) throw new Error(`gRPC handler ${method} not found; keep @firestore-emulator/server pinned at 0.3.15`);
    return found;
  };

  for (const method of ["BatchGetDocuments", "RunQuery", "RunAggregationQuery"]) {
    const read = handler(method);
    const original = read.func;
    read.func = (call: ReadCall) => {
      transactionalRead(call, original, lock).catch((error) => call.emit("error", asGrpcError(error)));
    };
  }

  handler("BeginTransaction").func = (call: UnaryCall<{ options: { mode: string } }>, callback: Callback) => {
    const begin = async () => {
      if (call.request.options?.mode === "read_only") return lock.readOnlyId();
      const id = await lock.acquire();
      if (call.cancelled) lock.release(id);
      return id;
    };
    begin().then(
      (transaction) => callback(null, BeginTransactionResponse.fromObject({ transaction })),
      (error) => callback(asGrpcError(error)),
    );
  };

  handler("Commit").func = (call: UnaryCall<{ transaction: Uint8Array; writes: ProtoWrite[] }>, callback: Callback) => {
    commit(call.request, state, lock).then(
      (result) => callback(null, CommitResponse.fromObject(result)),
      (error) => callback(asGrpcError(error)),
    );
  };

  const rollback = handler("Rollback");
  const originalRollback = rollback.func;
  rollback.func = (call: UnaryCall<{ transaction: Uint8Array }>, callback: Callback) => {
    lock.release(call.request.transaction);
    originalRollback(call, callback);
  };
}

async function transactionalRead(call: ReadCall, original: GrpcHandler["func"], lock: TxLock): Promise<void> {
  const { consistency_selector: selector, transaction, new_transaction } = call.request;
  if (selector === "transaction" && lock.isReadWriteId(transaction) && !lock.holds(transaction)) {
    throw expired(transaction);
  }
  if (selector !== "new_transaction") return original(call);

  const readWrite = new_transaction.mode !== "read_only";
  const id = readWrite ? await lock.acquire() : lock.readOnlyId();
  if (call.cancelled) return lock.release(id);

  // The library stamps its own constant id on the responses; swap ours in.
  let delivered = false;
  const write = call.write.bind(call);
  call.write = (message, ...rest) => {
    if (message.transaction?.length) {
      message.transaction = id;
      delivered = true;
    }
    return write(message, ...rest);
  };
  try {
    original(call);
  } finally {
    // A read that failed before telling the client its id can never be committed or rolled back.
    if (!delivered) lock.release(id);
  }
}

async function commit(
  request: { transaction: Uint8Array; writes: ProtoWrite[] },
  state: FirestoreState,
  lock: TxLock,
): Promise<CommitResult> {
  const { transaction } = request;
  if (lock.isReadWriteId(transaction) && !lock.holds(transaction)) throw expired(transaction);
  // Anything not already holding the lock (plain writes and batches) queues for it.
  const id = lock.holds(transaction) ? transaction : await lock.acquire();
  try {
    return commitWrites(state, request.writes);
  } finally {
    lock.release(id);
  }
}

function expired(id: Uint8Array): CommitError {
  // ABORTED makes the SDK retry the whole transaction, which is what a client evicted by the
  // lock timeout needs: its reads may be stale by now.
  const name = new TextDecoder().decode(id);
  return new CommitError(
    status.ABORTED,
    `transaction ${name} is not active: it ended, or outlived the stand-in's lock timeout`,
  );
}

function asGrpcError(error: unknown): GrpcError {
  if (error instanceof CommitError) return { code: error.code, details: error.message };
  console.error("firestore stand-in:", error);
  return { code: status.INTERNAL, details: error instanceof Error ? error.message : String(error) };
}
