import { spawn, type ChildProcess } from "node:child_process";
import { randomInt } from "node:crypto";
import { closeSync, mkdirSync, openSync } from "node:fs";
import { connect, createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Firestore } from "firebase-admin/firestore";

/**
 * Below the kernel's ephemeral ports (32768–60999 here, /proc/sys/net/ipv4/ip_local_port_range):
 * a port the kernel handed out and took back may next be the source port of any connection the
 * machine opens, and the emulator meant to listen on it then cannot bind it and exits.
 */
const LISTEN_PORTS = { from: 20_000, to: 32_000 };

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/**
 * The ports handed out in this run, by every worker (one parent process): a JVM takes seconds to
 * bind its port, and two files picking the same free port meanwhile would each get an emulator
 * answering on it, the other's, which their SIGSTOP does not freeze. Each is handed out once.
 */
const HANDED_OUT = join(tmpdir(), `own-firestore-ports-${process.ppid}`);

function reserved(port: number): boolean {
  mkdirSync(HANDED_OUT, { recursive: true });
  try {
    closeSync(openSync(join(HANDED_OUT, String(port)), "wx"));
    return true;
  } catch {
    return false;
  }
}

/** A port nothing listens on, for a server the test starts (a random one, so files side by side do not meet). */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = randomInt(LISTEN_PORTS.from, LISTEN_PORTS.to);
    if ((await bindable(port)) && reserved(port)) return port;
  }
}

/**
 * A port for a Firestore emulator of the test's own: Google's listens on the two above it as well
 * (`besideApi` in tools/stack/firestore.ts), so all three are free.
 */
export async function freeFirestorePort(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if ((await bindable(port + 1)) && (await bindable(port + 2)) && reserved(port + 1) && reserved(port + 2))
      return port;
  }
}

const MAIN = join(__dirname, "..", "..", "..", "tools", "firestore-stand-in", "main.ts");

/**
 * How the stack starts Google's emulator (tools/stack.ts sets FIRESTORE_LAUNCH where it runs one):
 * the command and its first arguments, to which the host, the port and the project are added.
 */
const launch = (): { command: string; prefix: string[] } | null =>
  process.env.FIRESTORE_LAUNCH ? JSON.parse(process.env.FIRESTORE_LAUNCH) : null;

async function answersOk(port: number): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(1000) });
    return (await res.text()).trim() === "Ok";
  } catch {
    return false;
  }
}

/**
 * A Firestore emulator of the test's own on `port` (from freeFirestorePort), of the kind the stack runs (Google's where it
 * runs one, otherwise the stand-in): for tests that stop or freeze their emulator. Its own process
 * group, since Google's launcher runs the JVM as a child: `signal` and `stopped` reach both.
 */
export async function startOwnFirestore(port: number): Promise<ChildProcess> {
  const official = launch();
  if (official === null) return startStandIn(port);
  const args = [
    ...official.prefix,
    "--host=127.0.0.1",
    `--port=${port}`,
    `--websocket_port=${port + 1}`,
    `--webchannel_port=${port + 2}`,
    `--project_id=${process.env.GCLOUD_PROJECT}`,
  ];
  const child = spawn(official.command, args, { stdio: ["ignore", "pipe", "pipe"], detached: true });
  // What it said last, for the error should it not come up; read throughout, so it never blocks on a full pipe.
  let said = "";
  const keep = (chunk: Buffer) => (said = (said + chunk.toString()).slice(-6000));
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  let exited = false;
  child.once("exit", () => (exited = true));
  for (let waited = 0; !(await answersOk(port)); waited += 200) {
    if (exited) throw new Error(`the Firestore emulator exited before it answered on ${port}:\n${said}`);
    if (waited > 60_000) throw new Error(`the Firestore emulator did not answer on ${port} within 60 s`);
    await new Promise((r) => setTimeout(r, 200));
  }
  // What answered must be this one: an emulator that could not bind the port has gone by now.
  if (exited) throw new Error(`the Firestore emulator exited, and another answers on ${port}:\n${said}`);
  // And its own SIGSTOP must silence the port, as the tests that freeze it rely on: an emulator
  // that lost the port to another process may not have exited yet when the other answers.
  signal(child, "SIGSTOP");
  const another = await answersOk(port);
  signal(child, "SIGCONT");
  if (another) {
    await stopped(child);
    throw new PortTaken(port);
  }
  return child;
}

/** Another process answers on the port an emulator of the test's own was started on. */
export class PortTaken extends Error {
  constructor(readonly port: number) {
    super(`another process answers on ${port}, the port this test's Firestore emulator was given`);
  }
}

/**
 * A Firestore emulator of the test's own (startOwnFirestore) on a port of its own: a port another
 * process turns out to answer on (PortTaken) is left for a fresh one, at most three times.
 */
export async function ownFirestore(): Promise<{ port: number; emulator: ChildProcess }> {
  for (let tries = 1; ; tries++) {
    const port = await freeFirestorePort();
    try {
      return { port, emulator: await startOwnFirestore(port) };
    } catch (err) {
      if (!(err instanceof PortTaken) || tries === 3) throw err;
    }
  }
}

/** SIGSTOP or SIGCONT to an emulator and everything it started. */
export function signal(child: ChildProcess, sig: "SIGSTOP" | "SIGCONT"): void {
  process.kill(-(child.pid as number), sig);
}

/** A Firestore stand-in of the test's own, on `port` (its own process group, like Google's above). */
export function startStandIn(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [MAIN, "--port", String(port)], {
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  return new Promise((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => chunk.toString().includes("ready") && resolve(child));
    child.once("exit", (code) => reject(new Error(`stand-in exited ${code}`)));
  });
}

const groupAlive = (pid: number): boolean => {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * Stops a child and, when it leads a process group of its own (the emulators above), everything
 * it started, and resolves once all of it has gone (so its port is free again): Google's launcher
 * leaves its JVM running when it alone is told to stop.
 */
export async function stopped(child: ChildProcess): Promise<void> {
  const pid = child.pid as number;
  if (!groupAlive(pid)) {
    if (child.exitCode !== null || child.signalCode !== null) return;
    return new Promise((resolve) => {
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
    });
  }
  process.kill(-pid, "SIGCONT");
  process.kill(-pid, "SIGTERM");
  for (let waited = 0; groupAlive(pid); waited += 100) {
    if (waited === 15_000) process.kill(-pid, "SIGKILL");
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * A TCP relay on a port of its own to whatever listens on `target`: a client bound to the relay
 * reaches an emulator that is stopped and started again on a fresh port (`to`), so a test never
 * hands the port of a stopped emulator back to the machine and hopes to bind it again. While
 * nothing answers behind it, each connection it takes is dropped, as the emulator's own would be.
 */
export async function relayTo(
  target: number,
): Promise<{ port: number; to(port: number): void; close(): Promise<void> }> {
  let behind = target;
  const open = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(behind, "127.0.0.1");
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.once("close", () => open.delete(socket));
      socket.once("error", () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  const port = await freePort();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  return {
    port,
    to: (next) => {
      behind = next;
      for (const socket of open) socket.destroy();
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A Firestore client bound to another emulator: the SDK reads the emulator host when it is built. */
export function firestoreAt(host: string): Firestore {
  const saved = process.env.FIRESTORE_EMULATOR_HOST;
  process.env.FIRESTORE_EMULATOR_HOST = host;
  try {
    return new Firestore({ projectId: process.env.GCLOUD_PROJECT });
  } finally {
    process.env.FIRESTORE_EMULATOR_HOST = saved;
  }
}

/**
 * Closes a client whose emulator was stopped while a query of its was in flight. The SDK retries
 * such a query in the background, and a retry that wakes after `terminate()` rejects where nobody
 * listens; so the emulator comes back on the same port and the client is closed only once the
 * retried queries have reached it.
 */
export async function retire(db: Firestore, port: number, pendingQueries: number): Promise<void> {
  const standIn = await startStandIn(port);
  try {
    for (let waited = 0; ; waited += 100) {
      const ops = (await (await fetch(`http://127.0.0.1:${port}/emulator/v1/operations`)).json()) as {
        queries: number;
      };
      if (ops.queries >= pendingQueries) break;
      if (waited > 60_000) throw new Error(`the client's ${pendingQueries} pending queries never came back`);
      await new Promise((r) => setTimeout(r, 100));
    }
    await db.terminate();
  } finally {
    await stopped(standIn);
  }
}

/**
 * Waits until the stopped emulator no longer answers a read of its own (each given half a second),
 * for at most ten tries: on a busy machine a stop takes a moment to hold every thread of the JVM,
 * and a request sent meanwhile is answered as if nothing were frozen. The reads left waiting are
 * answered once the emulator goes on.
 */
export async function frozenNow(db: Firestore): Promise<void> {
  for (let tries = 0; tries < 10; tries++) {
    const answered = await Promise.race([
      db
        .doc("probe/frozen")
        .get()
        .then(() => true),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 500)),
    ]);
    if (!answered) return;
  }
  throw new Error("the emulator still answers after SIGSTOP");
}
