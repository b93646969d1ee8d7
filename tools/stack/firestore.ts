/**
 * Which Firestore emulator a local stack (and the soak, and the benches) runs, in this order:
 * 1. firebase-tools' own: Java ≥ 21 and its jar in firebase-tools' cache; the Firebase CLI starts it.
 * 2. The gcloud component (`cloud-firestore-emulator`, the same emulator packaged with the Cloud
 *    SDK): found at its Debian path or under `gcloud info`'s SDK root, and run here with the
 *    machine's Java (it needs no Java 21).
 * 3. The stand-in (tools/firestore-stand-in), only where neither is found.
 * `FIRESTORE_STAND_IN=1` forces the stand-in. Both official kinds lock and abort contending
 * transactions as production does; the stand-in serialises every transaction and never aborts.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { freePort, portIsFree } from "./processes.ts";

/** How to start Google's emulator as a process of one's own: the command and its first arguments. */
export interface Launch {
  command: string;
  prefix: string[];
}

export type FirestoreChoice =
  | { kind: "firebase-tools"; launch: Launch; why: string }
  | { kind: "gcloud"; launch: Launch; why: string }
  | { kind: "stand-in"; why: string };

/** "official" where Google's emulator runs, whichever copy; the location file and `status` say it. */
export const flavour = (choice: FirestoreChoice): "official" | "stand-in" =>
  choice.kind === "stand-in" ? "stand-in" : "official";

const COMPONENT = join("platform", "cloud-firestore-emulator", "cloud_firestore_emulator");
const DEBIAN_SDK = "/usr/lib/google-cloud-sdk";

function javaMajor(): number | null {
  const java = spawnSync("java", ["-version"], { encoding: "utf8" });
  if (java.error) return null;
  const match = /version "(\d+)/.exec(`${java.stderr ?? ""}${java.stdout ?? ""}`);
  return match ? Number(match[1]) : null;
}

function firebaseToolsJar(): string | null {
  const cache = join(homedir(), ".cache", "firebase", "emulators");
  if (!existsSync(cache)) return null;
  const jar = readdirSync(cache).find((f) => f.startsWith("cloud-firestore-emulator") && f.endsWith(".jar"));
  return jar === undefined ? null : join(cache, jar);
}

/** The gcloud component's launcher: the Debian package's path first, then the SDK root gcloud names. */
function gcloudComponent(): string | null {
  const debian = join(DEBIAN_SDK, COMPONENT);
  if (existsSync(debian)) return debian;
  const info = spawnSync("gcloud", ["info", "--format=value(installation.sdk_root)"], {
    encoding: "utf8",
    timeout: 20_000,
  });
  const root = info.status === 0 ? info.stdout.trim() : "";
  return root !== "" && existsSync(join(root, COMPONENT)) ? join(root, COMPONENT) : null;
}

export function chooseFirestore(env: NodeJS.ProcessEnv = process.env): FirestoreChoice {
  if (env.FIRESTORE_STAND_IN === "1") return { kind: "stand-in", why: "FIRESTORE_STAND_IN=1 asks for it" };
  const java = javaMajor();
  if (java === null) return { kind: "stand-in", why: "no Java on this machine for the official emulator" };
  const jar = java >= 21 ? firebaseToolsJar() : null;
  if (jar !== null)
    return {
      kind: "firebase-tools",
      launch: { command: "java", prefix: ["-Duser.language=en", "-jar", jar] },
      why: `firebase-tools' own copy, on Java ${java}`,
    };
  const command = gcloudComponent();
  if (command !== null)
    return {
      kind: "gcloud",
      launch: { command, prefix: ["start"] },
      why: `the gcloud component at ${command}, on Java ${java}`,
    };
  return {
    kind: "stand-in",
    why: `neither firebase-tools' copy (Java 21 and its jar) nor the gcloud component (${COMPONENT}) is here`,
  };
}

/**
 * The ports Google's emulator opens beside its API: the emulator UI's websocket and the WebChannel.
 * Left to choose them itself, it opens a socket on port 0, closes it, and binds that port a moment
 * later; a connection the machine opens in between may take it as its source port, and the
 * emulator then exits on the bind. So each is named: the two ports above the API's.
 */
export const besideApi = (api: number): { websocket: number; webchannel: number } => ({
  websocket: api + 1,
  webchannel: api + 2,
});

/** A port for an emulator of one's own (the benches, the soak): it and the two beside it are free. */
export async function freeFirestorePort(): Promise<number> {
  for (;;) {
    const port = await freePort();
    const beside = Object.values(besideApi(port));
    if ((await Promise.all(beside.map(portIsFree))).every(Boolean)) return port;
  }
}

/**
 * The arguments of Google's emulator, started as a process of one's own on `port`: `seed` is an
 * export's `.overall_export_metadata` file to start from (firestoreExport writes them).
 */
export function officialArgs(launch: Launch, port: number, projectId: string, seed?: string): string[] {
  return [
    ...launch.prefix,
    "--host=127.0.0.1",
    `--port=${port}`,
    `--websocket_port=${besideApi(port).websocket}`,
    `--webchannel_port=${besideApi(port).webchannel}`,
    `--project_id=${projectId}`,
    ...(seed === undefined ? [] : [`--seed_from_export=${seed}`]),
  ];
}

/** Ready when `GET /` answers `Ok`, on either emulator. */
export async function firestoreAnswers(port: number): Promise<boolean> {
  const res = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(2000) });
  return res.ok && (await res.text()).trim() === "Ok";
}

export const EXPORT_NAME = "firestore_export";

/** The file an export made by firestoreExport is seeded from. */
export const exportMetadata = (dir: string) => join(dir, EXPORT_NAME, `${EXPORT_NAME}.overall_export_metadata`);

/** Asks a running official emulator to export every document into `dir` (an existing directory). */
export async function firestoreExport(port: number, projectId: string, dir: string): Promise<void> {
  const res = await fetch(`http://127.0.0.1:${port}/emulator/v1/projects/${projectId}:export`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      database: `projects/${projectId}/databases/(default)`,
      export_directory: dir,
      export_name: EXPORT_NAME,
    }),
    signal: AbortSignal.timeout(60_000),
  });
  if (!res.ok) throw new Error(`the Firestore emulator's export answered ${res.status}: ${await res.text()}`);
}

/**
 * A Firestore emulator as a process of one's own on `port` (the soak, the benches, tests that stop
 * or freeze their emulator): Google's where the choice found it, otherwise the stand-in.
 */
export function firestoreProcess(
  choice: FirestoreChoice,
  port: number,
  projectId: string,
): { command: string; args: string[] } {
  if (choice.kind === "stand-in")
    return {
      command: process.execPath,
      args: [join(import.meta.dirname, "..", "firestore-stand-in", "main.ts"), "--port", String(port)],
    };
  return { command: choice.launch.command, args: officialArgs(choice.launch, port, projectId) };
}
