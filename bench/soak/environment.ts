/**
 * The real components the service depends on, started by the soak on free loopback ports
 * (never those of `npm start` or `npm test`, so it runs beside either): a Firestore emulator
 * (Google's or the stand-in, as the run's choice names), maildev, the Auth emulator and the
 * gaming bridge's OpenID 2.0 provider. Faults are real process actions on them: SIGSTOP/SIGCONT,
 * SIGTERM and a fresh start on the same port, sent to each one's whole process group.
 */
import { SOAK_BUDGETS } from "./context.ts";
import { mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CLIENT_ID as FEDERATED_CLIENT_ID,
  CLIENT_SECRET as FEDERATED_CLIENT_SECRET,
  startFederatedProvider,
  type FederatedProvider,
} from "../../tools/federated-provider.ts";
import { startGamingProvider, type GamingProvider } from "../../tools/gaming-provider.ts";
import {
  besideApi,
  firestoreAnswers,
  firestoreProcess,
  flavour,
  type FirestoreChoice,
} from "../../tools/stack/firestore.ts";
import { waitFor } from "../../tools/stack/processes.ts";
import { root } from "../lib/functions.ts";
import { freeFirestorePort, freePort } from "../lib/procs.ts";
import { signal, start, stop, stopAll, type Proc } from "./processes.ts";

export const PROJECT = "demo-soak";

/**
 * Ports for the soak's components, none the same, and none the two beside the Firestore emulator's
 * (`besideApi`): they are all chosen before any of them listens.
 */
async function componentPorts<K extends string>(others: K[]): Promise<{ firestore: number } & Record<K, number>> {
  const firestore = await freeFirestorePort();
  const taken = new Set([firestore, ...Object.values(besideApi(firestore))]);
  const chosen: Record<string, number> = { firestore };
  for (const key of others) {
    let p = await freePort();
    while (taken.has(p)) p = await freePort();
    taken.add(p);
    chosen[key] = p;
  }
  return chosen as { firestore: number } & Record<K, number>;
}

async function answers(url: string): Promise<boolean> {
  const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
  await res.arrayBuffer();
  return res.status < 500;
}

/** Google's emulator is a JVM that answers about 8 s after it starts, later on a busy machine. */
const FIRESTORE_START_MS = 60_000;

export class Environment {
  readonly firestoreChoice: FirestoreChoice;
  readonly dir: string;
  ports = { firestore: 0, smtp: 0, mailWeb: 0, auth: 0, hub: 0, logging: 0 };
  /** How many times Firestore has started: its data does not survive a restart. */
  epoch = 0;
  private firestore: Proc | undefined;
  private mail: Proc | undefined;
  private auth: Proc | undefined;
  /** The gaming bridge's provider, in this process: the fault is its `hang` mode. */
  gaming: GamingProvider | undefined;
  /** The OpenID Connect provider behind the federated bridge (idp `search`), in this process. */
  federated: FederatedProvider | undefined;

  constructor(choice: FirestoreChoice) {
    this.firestoreChoice = choice;
    this.dir = mkdtempSync(join(tmpdir(), `soak-${flavour(choice)}-`));
  }

  /** What the report calls the Firestore process the faults act on. */
  get firestoreName(): string {
    return flavour(this.firestoreChoice) === "official" ? "the official emulator (its JVM)" : "the stand-in";
  }

  get firestoreHost(): string {
    return `127.0.0.1:${this.ports.firestore}`;
  }
  get authHost(): string {
    return `127.0.0.1:${this.ports.auth}`;
  }
  get mailUrl(): string {
    return `http://127.0.0.1:${this.ports.mailWeb}`;
  }

  async startAll(): Promise<void> {
    this.ports = await componentPorts(["smtp", "mailWeb", "auth", "hub", "logging"]);
    await Promise.all([this.startFirestore(), this.startMail(), this.startAuth()]);
    this.gaming = await startGamingProvider(await freePort());
    this.federated = await startFederatedProvider(await freePort());
  }

  async startFirestore(): Promise<void> {
    const { command, args } = firestoreProcess(this.firestoreChoice, this.ports.firestore, PROJECT);
    const proc = start("firestore", command, args, { logDir: this.dir });
    this.firestore = proc;
    const what = `Firestore (${flavour(this.firestoreChoice)})`;
    await waitFor(what, () => firestoreAnswers(this.ports.firestore), FIRESTORE_START_MS, proc.child);
    this.epoch++;
  }

  /** The process stays, with its data and its open connections; it just stops answering. */
  freezeFirestore(): void {
    if (this.firestore) signal(this.firestore, "SIGSTOP");
  }
  thawFirestore(): void {
    if (this.firestore) signal(this.firestore, "SIGCONT");
  }
  async stopFirestore(): Promise<void> {
    if (this.firestore) await stop(this.firestore);
  }

  async startMail(): Promise<void> {
    const bin = join(root, "node_modules", "maildev", "bin", "maildev");
    const args = [
      "--smtp",
      String(this.ports.smtp),
      "--web",
      String(this.ports.mailWeb),
      "--ip",
      "127.0.0.1",
      // On disk, and read back when it starts again: mail the server accepted just before it was
      // stopped is in the inbox afterwards, as with any mail server, not lost with its memory.
      "--mail-directory",
      join(this.dir, "mail"),
      "--silent",
    ];
    const proc = start("maildev", process.execPath, [bin, ...args], { logDir: this.dir });
    this.mail = proc;
    await waitFor("maildev", () => answers(`${this.mailUrl}/email`), 15_000, proc.child);
  }
  async stopMail(): Promise<void> {
    if (this.mail) await stop(this.mail);
  }

  /** The Auth emulator alone, from a config of its own in the soak's temp dir (no UI, own hub and logging ports). */
  private async startAuth(): Promise<void> {
    const config = join(this.dir, "firebase.json");
    const host = "127.0.0.1";
    const emulators = {
      auth: { host, port: this.ports.auth },
      hub: { host, port: this.ports.hub },
      logging: { host, port: this.ports.logging },
      ui: { enabled: false },
    };
    writeFileSync(config, JSON.stringify({ emulators }, null, 2));
    const bin = realpathSync(join(root, "node_modules", ".bin", "firebase"));
    const args = [bin, "emulators:start", "--only", "auth", "--project", PROJECT, "--config", config];
    // cwd is the temp dir, so firebase-debug.log lands there and not in the repository.
    const proc = start("auth-emulator", process.execPath, args, {
      logDir: this.dir,
      cwd: this.dir,
      env: { NO_UPDATE_NOTIFIER: "1", FIREBASE_CLI_EXPERIMENTS: "" },
    });
    this.auth = proc;
    await waitFor("Auth emulator", () => answers(`http://${this.authHost}/`), 60_000, proc.child);
  }

  /**
   * The service under test (bench/soak/server.ts) in a process of its own, on these components:
   * started once; recovering from their faults is its job.
   */
  async startService(secrets: { sessionKeys: string; codePepper: string }): Promise<{ base: string; proc: Proc }> {
    const port = await freePort();
    const env = {
      PORT: String(port),
      SESSION_KEYS: secrets.sessionKeys,
      CODE_PEPPER: secrets.codePepper,
      SMTP_PORT: String(this.ports.smtp),
      GCLOUD_PROJECT: PROJECT,
      FIRESTORE_EMULATOR_HOST: this.firestoreHost,
      FIREBASE_AUTH_EMULATOR_HOST: this.authHost,
      METADATA_SERVER_DETECTION: "none",
      GAMING_OPENID_ENDPOINT: this.gaming?.endpoint ?? "",
      FEDERATED_PROVIDERS: this.federated
        ? JSON.stringify({
            search: { issuer: this.federated.issuer, clientId: FEDERATED_CLIENT_ID, providerId: "google.com" },
          })
        : "",
      FEDERATED_CLIENT_SECRETS: JSON.stringify({ search: FEDERATED_CLIENT_SECRET }),
      SEND_BUDGETS: JSON.stringify(SOAK_BUDGETS),
    };
    const proc = start("service", process.execPath, [join(root, "bench", "soak", "server.ts")], {
      env,
      logDir: this.dir,
      stdin: "pipe",
    });
    const base = `http://127.0.0.1:${port}`;
    await waitFor(
      "service",
      () => fetch(`${base}/auth/logout`, { method: "POST" }).then((r) => r.ok),
      30_000,
      proc.child,
    );
    return { base, proc };
  }

  async stopAll(): Promise<void> {
    await this.gaming?.close();
    await this.federated?.close();
    if (this.auth) await stop(this.auth, "SIGINT");
    await stopAll();
  }
}
