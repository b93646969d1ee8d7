/**
 * Where `npm start` keeps the local stack's data between runs: `emulator-data/local/` (beside the
 * committed seed, and not committed itself). The Auth emulator (and firebase-tools' own Firestore
 * emulator, where it runs) are exported by the Firebase CLI on exit and imported at start; the
 * gcloud component's Firestore emulator is exported by the stack through the emulator's export
 * endpoint once the Firebase CLI has stopped, and seeded from that export at start; the
 * Firestore stand-in saves and loads its own file. `npm start -- --fresh` imports nothing, so the
 * stack starts from the seed; `npm test` never reads or writes any of it.
 *
 * Nothing is half-written: the stand-in writes a temporary file and renames it; each export goes
 * to a `.next/` folder, which replaces the last one only once it is complete. A stop cut short
 * leaves the `.next/` folder behind, and the next start removes it unread.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exportMetadata } from "./firestore.ts";

const METADATA = "firebase-export-metadata.json";

export interface LocalState {
  dir: string;
  /** The emulators' own temporary directory (their hub's locator file is kept there). */
  tmp: string;
  /** Arguments of `firebase emulators:start`: import what is there, export to the staging folder. */
  emulatorArgs: string[];
  /** Arguments of the Firestore stand-in. */
  standInArgs: string[];
  /** The gcloud component's start: the last complete export to seed from (none when fresh). */
  firestoreSeed: string | undefined;
  /** An empty folder for the gcloud component's export on stop; it replaces the last one in afterStop. */
  firestoreNext: string;
  /** After the emulators have stopped: a complete export replaces the last one; their temporary directory goes. */
  afterStop(): void;
}

/** `next` replaces `current` when `complete(next)` holds; otherwise the last one stays. */
function swapIn(next: string, current: string, complete: (dir: string) => boolean): void {
  if (!complete(next)) return;
  const old = `${current}.old`;
  rmSync(old, { recursive: true, force: true });
  if (existsSync(current)) renameSync(current, old);
  renameSync(next, current);
  rmSync(old, { recursive: true, force: true });
}

export function localState(root: string, fresh: boolean): LocalState {
  const dir = join(root, "emulator-data", "local");
  const firebase = join(dir, "firebase");
  const next = join(dir, "firebase.next");
  const firestore = join(dir, "firestore");
  const firestoreNext = join(dir, "firestore.next");
  mkdirSync(dir, { recursive: true });
  for (const current of [firebase, firestore]) {
    // A stop that was cut short between the two renames above left the last export as `.old`.
    if (!existsSync(current) && existsSync(`${current}.old`)) renameSync(`${current}.old`, current);
    rmSync(`${current}.next`, { recursive: true, force: true });
  }
  mkdirSync(firestoreNext);
  // The Firebase CLI exports into a temporary folder in its working directory first.
  for (const name of readdirSync(root))
    if (name.startsWith("firebase-export-")) rmSync(join(root, name), { recursive: true, force: true });
  const imported = !fresh && existsSync(join(firebase, METADATA));
  // Short (the Functions emulator puts its workers' sockets there) and this checkout's own.
  const tmp = join(tmpdir(), `identity-stack-${createHash("sha256").update(root).digest("hex").slice(0, 12)}`);
  mkdirSync(tmp, { recursive: true });
  return {
    dir,
    tmp,
    emulatorArgs: [...(imported ? ["--import", firebase] : []), "--export-on-exit", next],
    standInArgs: ["--data", join(dir, "firestore-stand-in.json"), ...(fresh ? ["--fresh"] : [])],
    firestoreSeed: !fresh && existsSync(exportMetadata(firestore)) ? exportMetadata(firestore) : undefined,
    firestoreNext,
    afterStop: () => {
      rmSync(tmp, { recursive: true, force: true });
      swapIn(next, firebase, (d) => existsSync(join(d, METADATA)));
      swapIn(firestoreNext, firestore, (d) => existsSync(exportMetadata(d)));
      rmSync(firestoreNext, { recursive: true, force: true });
    },
  };
}
