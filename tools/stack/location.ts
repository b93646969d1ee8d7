/**
 * The one place the running stack's location is written: `.stack/local-stack.json`, which the
 * operator CLI reads (functions/src/ops/local-stack.ts) so that `npm run admin` finds a stack on
 * any ports. Written whole and renamed into place once the stack is ready; removed when it stops.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { idSitePort, type Profile } from "./ports.ts";

export const locationFile = (root: string) => join(root, ".stack", "local-stack.json");

/** Every address of the stack, by what it is (the CLI's `status` prints them as they are). */
export function stackUrls(p: Profile, parentDomain: string): Record<string, string> {
  const at = (port: number) => `http://127.0.0.1:${port}`;
  return {
    service: at(p.hosting),
    id: at(idSitePort(p)),
    functions: at(p.functions),
    auth: at(p.auth),
    firestore: `127.0.0.1:${p.firestore}`,
    mail: at(p.mailWeb),
    smtp: `127.0.0.1:${p.smtp}`,
    https: `https://${parentDomain}, https://id.${parentDomain}, https://<app>.${parentDomain} at 127.0.0.1:${p.https}`,
    gaming: `${at(p.gaming)}/openid/login`,
    federated: at(p.federated),
    hub: at(p.hub),
  };
}

export function writeLocation(
  root: string,
  p: Profile,
  firestore: { kind: "stand-in" | "official"; why: string },
  parentDomain: string,
) {
  const file = locationFile(root);
  mkdirSync(dirname(file), { recursive: true });
  const location = {
    project: p.projectId,
    pid: process.pid,
    startedAt: new Date().toISOString(),
    firestore: firestore.kind,
    firestoreWhy: firestore.why,
    ports: {
      hosting: p.hosting,
      idSite: idSitePort(p),
      functions: p.functions,
      auth: p.auth,
      firestore: p.firestore,
      hub: p.hub,
      logging: p.logging,
      smtp: p.smtp,
      mailWeb: p.mailWeb,
      gaming: p.gaming,
      federated: p.federated,
      https: p.https,
    },
    urls: stackUrls(p, parentDomain),
  };
  writeFileSync(`${file}.tmp`, JSON.stringify(location, null, 2) + "\n");
  renameSync(`${file}.tmp`, file);
}

/** Removes the file if this process wrote it (another stack of this checkout may have since). */
export function removeLocation(root: string): void {
  const file = locationFile(root);
  try {
    if (existsSync(file) && (JSON.parse(readFileSync(file, "utf8")) as { pid?: number }).pid === process.pid)
      rmSync(file, { force: true });
  } catch {
    // Unreadable: not ours to judge; the CLI ignores a file whose process is gone.
  }
}
