import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/** The official emulator needs Java 21+ and its jar in firebase-tools' cache; neither is downloaded here. */
export function officialFirestoreAvailable(): boolean {
  if (process.env.FIRESTORE_STAND_IN === "1") return false;
  const java = spawnSync("java", ["-version"], { encoding: "utf8" });
  const match = /version "(\d+)/.exec(`${java.stderr ?? ""}${java.stdout ?? ""}`);
  if (!match || Number(match[1]) < 21) return false;
  const cache = join(homedir(), ".cache", "firebase", "emulators");
  return (
    existsSync(cache) && readdirSync(cache).some((f) => f.startsWith("cloud-firestore-emulator") && f.endsWith(".jar"))
  );
}
