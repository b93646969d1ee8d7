/**
 * Commit with Firestore's semantics, on top of the library's storage.
 *
 * The library's own Commit merges where it should replace, ignores deletes in update masks,
 * stops after the first array/timestamp transform and applies the writes before a later one
 * fails. Here every write of a commit is checked and its outcome computed first, on plain
 * copies; only when all of them pass is anything stored, so a commit is all-or-nothing.
 */
import type { FirestoreState, FirestoreStateDocument } from "@firestore-emulator/server";
import { Write } from "@firestore-emulator/proto/dist/google/firestore/v1/write.js";
import { status } from "@grpc/grpc-js";

import {
  type Fields,
  type ProtoValue,
  type Timestamp,
  type Val,
  fieldsFromProto,
  fromProto,
  getAt,
  numberOf,
  parseFieldPath,
  putAt,
  sameValue,
} from "./values.ts";

/** The parts of the generated `google.firestore.v1.Write` message we read (duck-typed). */
type ProtoTransform = {
  field_path: string;
  transform_type: string;
  set_to_server_value: number;
  increment: ProtoValue;
  maximum: ProtoValue;
  minimum: ProtoValue;
  append_missing_elements: { values: ProtoValue[] };
  remove_all_from_array: { values: ProtoValue[] };
};
export type ProtoWrite = {
  operation: string;
  update: { name: string; fields: Map<string, ProtoValue> };
  delete: string;
  transform: { document: string; field_transforms: ProtoTransform[] };
  has_update_mask: boolean;
  update_mask: { field_paths: string[] };
  update_transforms: ProtoTransform[];
  has_current_document: boolean;
  current_document: { condition_type: string; exists: boolean; update_time: Timestamp };
};

export type CommitResult = {
  commit_time: Timestamp;
  write_results: Array<{ update_time: Timestamp; transform_results: Val[] }>;
};

/** Carries the gRPC status code the client should see. */
export class CommitError extends Error {
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.code = code;
  }
}

type DocState = { exists: boolean; fields: Fields; updatedMs: number | null };

const REQUEST_TIME = 1;

/** The last commit's time: every commit is stamped later than the one before, as Firestore stamps them. */
let lastCommitMs = 0;

/**
 * Applies a commit's writes at one time, strictly later than the last commit's (a millisecond on,
 * when two fall in the same one), so a document's update time changes with every write and a
 * precondition on it (`lastUpdateTime`) can never match a version that has been written over.
 */
export function commitWrites(state: FirestoreState, writes: ProtoWrite[], wall = new Date()): CommitResult {
  lastCommitMs = Math.max(wall.getTime(), lastCommitMs + 1);
  const now = new Date(lastCommitMs);
  const time = timestampOf(now.getTime());
  const pending = new Map<string, DocState>();
  const current = (path: string): DocState => pending.get(path) ?? stored(state.getDocument(path));

  const write_results = writes.map((write) => {
    const path = targetOf(write);
    const before = current(path);
    checkPrecondition(write, path, before);
    const { fields, transform_results } = outcome(write, before, time);
    pending.set(path, { exists: write.operation !== "delete", fields, updatedMs: now.getTime() });
    return { update_time: time, transform_results };
  });

  for (const [path, doc] of pending) store(state, path, doc, now);
  return { commit_time: time, write_results };
}

function stored(doc: FirestoreStateDocument): DocState {
  if (!doc.metadata.hasExist) return { exists: false, fields: {}, updatedMs: null };
  return {
    exists: true,
    fields: doc.toV1DocumentObject().fields as Fields,
    updatedMs: doc.metadata.updatedAt.getTime(),
  };
}

function targetOf(write: ProtoWrite): string {
  switch (write.operation) {
    case "update":
      return write.update.name;
    case "delete":
      return write.delete;
    case "transform":
      return write.transform.document;
    default:
      throw new CommitError(status.INVALID_ARGUMENT, "write has no operation");
  }
}

function checkPrecondition(write: ProtoWrite, path: string, doc: DocState): void {
  if (!write.has_current_document) return;
  const condition = write.current_document;
  if (condition.condition_type === "exists") {
    if (condition.exists && !doc.exists) throw new CommitError(status.NOT_FOUND, `No document to update: ${path}`);
    if (!condition.exists && doc.exists)
      throw new CommitError(status.ALREADY_EXISTS, `Document already exists: ${path}`);
  }
  if (condition.condition_type === "update_time") {
    const wanted = condition.update_time.seconds * 1000 + Math.floor(condition.update_time.nanos / 1e6);
    if (doc.updatedMs !== wanted) {
      throw new CommitError(
        status.FAILED_PRECONDITION,
        `the stored version of ${path} does not match the required base version`,
      );
    }
  }
}

function outcome(write: ProtoWrite, before: DocState, time: Timestamp): { fields: Fields; transform_results: Val[] } {
  if (write.operation === "delete") return { fields: {}, transform_results: [] };
  let fields = before.fields;
  let transforms = write.update_transforms;
  if (write.operation === "transform") {
    transforms = write.transform.field_transforms;
  } else {
    const written = fieldsFromProto(write.update.fields);
    // Without a mask the write is the whole new document (set without merge). With one, only
    // the masked paths change, and a masked path the write leaves out is deleted.
    fields = write.has_update_mask ? masked(before.fields, written, write.update_mask.field_paths) : written;
  }
  const transform_results: Val[] = [];
  for (const transform of transforms) {
    const path = parseFieldPath(transform.field_path);
    const result = transformed(getAt(fields, path), transform, time);
    fields = putAt(fields, path, result);
    transform_results.push(result);
  }
  return { fields, transform_results };
}

function masked(base: Fields, written: Fields, mask: string[]): Fields {
  let fields = base;
  for (const fieldPath of mask) {
    const path = parseFieldPath(fieldPath);
    fields = putAt(fields, path, getAt(written, path));
  }
  return fields;
}

function transformed(current: Val | undefined, transform: ProtoTransform, time: Timestamp): Val {
  const have = numberOf(current);
  switch (transform.transform_type) {
    case "set_to_server_value":
      if (transform.set_to_server_value === REQUEST_TIME) return { timestamp_value: time };
      break;
    case "increment": {
      const by = fromProto(transform.increment);
      if (have === null || current === undefined) return by;
      const sum = have + (numberOf(by) ?? 0);
      return "integer_value" in current && "integer_value" in by ? { integer_value: sum } : { double_value: sum };
    }
    case "maximum":
    case "minimum": {
      const other = fromProto(transform[transform.transform_type]);
      if (have === null || current === undefined) return other;
      const otherNumber = numberOf(other) ?? have;
      const otherWins = transform.transform_type === "maximum" ? otherNumber > have : otherNumber < have;
      return otherWins ? other : current;
    }
    case "append_missing_elements": {
      const values = current && "array_value" in current ? [...current.array_value.values] : [];
      for (const value of transform.append_missing_elements.values.map(fromProto)) {
        if (!values.some((v) => sameValue(v, value))) values.push(value);
      }
      return { array_value: { values } };
    }
    case "remove_all_from_array": {
      const values = current && "array_value" in current ? current.array_value.values : [];
      const remove = transform.remove_all_from_array.values.map(fromProto);
      return { array_value: { values: values.filter((v) => !remove.some((r) => sameValue(v, r))) } };
    }
  }
  throw new CommitError(status.INVALID_ARGUMENT, `unsupported transform on ${transform.field_path}`);
}

function store(state: FirestoreState, path: string, doc: DocState, now: Date): void {
  const target = state.getDocument(path);
  if (!doc.exists) {
    if (target.metadata.hasExist) state.writeV1Document(now, Write.fromObject({ delete: path }));
    return;
  }
  // The library's set() merges into what is there (and keeps createTime, which we want), so
  // write the new fields through it, then drop the top-level fields the new document lacks.
  state.writeV1Document(now, Write.fromObject({ update: { name: path, fields: doc.fields } }));
  const internal = target as unknown as { fields?: Record<string, unknown> };
  if (typeof internal.fields !== "object" || internal.fields === null) {
    throw new Error("@firestore-emulator/server internals changed (document.fields); keep it pinned at 0.3.15");
  }
  internal.fields = Object.fromEntries(Object.entries(internal.fields).filter(([key]) => key in doc.fields));
}

function timestampOf(ms: number): Timestamp {
  return { seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1e6 };
}
