/**
 * The stand-in's documents saved to one JSON file and loaded back, so a local stack keeps its
 * data across restarts (the official emulator's `--import` / `--export-on-exit`, for us).
 *
 * A save is taken in one synchronous pass, between commits (each commit is applied synchronously
 * too), so it never holds half of one; it is written to a temporary file and renamed over the
 * last, so a stop at any moment leaves either the old file or the new one, whole.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";

import { Write } from "@firestore-emulator/proto/dist/google/firestore/v1/write.js";
import type { FirestoreState } from "@firestore-emulator/server";

import type { Fields } from "./values.ts";

const FORMAT = "firestore-stand-in/1";

type Saved = { path: string; createTime: string; updateTime: string; fields: Fields };
type Snapshot = { format: string; documents: Saved[] };
type Node = { path?: string; documents?: Record<string, Node>; collections?: Record<string, Node> };
type Document = ReturnType<FirestoreState["getDocument"]>;

/** Every document path the state holds (the library's toJSON lists each with its `path`). */
function paths(node: Node, out: string[] = []): string[] {
  for (const doc of Object.values(node.documents ?? {})) {
    if (doc.path !== undefined) out.push(doc.path);
    for (const collection of Object.values(doc.collections ?? {})) paths(collection, out);
  }
  return out;
}

function allPaths(state: FirestoreState): string[] {
  const tree = state.toJSON() as { projects: Record<string, { databases: Record<string, Node> }> };
  return Object.values(tree.projects).flatMap((project) =>
    Object.values(project.databases).flatMap((database) =>
      Object.values(database.collections ?? {}).flatMap((collection) => paths(collection)),
    ),
  );
}

/** Bytes as base64 in the file; everything else is already plain JSON. */
const encode = (_key: string, value: unknown) =>
  value instanceof Uint8Array ? { $bytes: Buffer.from(value).toString("base64") } : value;
const decode = (_key: string, value: unknown) =>
  typeof value === "object" && value !== null && "$bytes" in value
    ? Buffer.from(String((value as { $bytes: unknown }).$bytes), "base64")
    : value;

export function saveState(state: FirestoreState, file: string): number {
  const documents: Saved[] = [];
  for (const path of allPaths(state)) {
    const doc = state.getDocument(path);
    if (!doc.metadata.hasExist) continue;
    const fields = doc.toV1DocumentObject().fields as Fields;
    const { createdAt, updatedAt } = doc.metadata;
    documents.push({ path, createTime: createdAt.toISOString(), updateTime: updatedAt.toISOString(), fields });
  }
  const snapshot: Snapshot = { format: FORMAT, documents };
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(snapshot, encode));
  renameSync(temporary, file);
  return documents.length;
}

/** Loads a saved file into an empty state; returns how many documents it held (0: no file). */
export function loadState(state: FirestoreState, file: string): number {
  if (!existsSync(file)) return 0;
  const snapshot = JSON.parse(readFileSync(file, "utf8"), decode) as Snapshot;
  if (snapshot.format !== FORMAT) throw new Error(`${file} is not a ${FORMAT} file`);
  for (const saved of snapshot.documents) {
    const updatedAt = new Date(saved.updateTime);
    state.writeV1Document(updatedAt, Write.fromObject({ update: { name: saved.path, fields: saved.fields } }));
    const doc: Document = state.getDocument(saved.path);
    // The write made it now; it was made then.
    doc.metadata = { hasExist: true, createdAt: new Date(saved.createTime), updatedAt };
  }
  return snapshot.documents.length;
}
