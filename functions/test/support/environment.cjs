/**
 * The behaviour files' environment: each file owns a Firestore project on the shared emulator
 * (`demo-<file>`, TEST_FIRESTORE_PROJECT, which test/support/deps.ts `firestore()` reads),
 * emptied before it starts, so no file sees another's people, codes, outbox, review queue or
 * sessions, and files run side by side.
 * What stays shared, and why:
 * - the Functions emulator serves the stack's one project: a file that drives the stack's
 *   functions (Hosting, the pages in a browser) or its operator CLI says so in its header with
 *   `@stack-project <why>`, and works in the stack's project with addresses of its own;
 * - the Auth emulator signs a client's sign-in (`accounts:signInWithPassword?key=…`) into the
 *   project it was started with, whatever the caller's: accounts are the stack's, and every file
 *   makes its own (`unique()` addresses);
 * - the dev inbox: each file's mail goes to addresses of its own, and is read by address.
 */
const { createHash } = require("node:crypto");
const { mkdirSync, readFileSync, rmSync, writeFileSync } = require("node:fs");
const { tmpdir } = require("node:os");
const { basename, join } = require("node:path");
const { TestEnvironment } = require("jest-environment-node");

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === "EPERM";
  }
}

/**
 * The stack's project is one file's at a time (the files that share it count its review queue,
 * its digest, its pending people): a directory made atomically, naming the worker that holds it,
 * taken from a worker that died holding it.
 */
async function takeStack(lock, who) {
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, "holder"), `${process.pid}\n${who}\n`);
      return;
    } catch (err) {
      if (err.code !== "EEXIST") throw err;
    }
    let holder = null;
    try {
      holder = Number(readFileSync(join(lock, "holder"), "utf8").split("\n")[0]);
    } catch {
      // Being written, or being let go: look again.
    }
    if (holder !== null && holder > 0 && !alive(holder)) rmSync(lock, { recursive: true, force: true });
    else await pause(100);
  }
}

/** `demo-` and the file's name: readable in the emulators' logs, within a project id's 30 characters. */
function projectFor(testPath) {
  const name = basename(testPath, ".test.ts")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-");
  const hash = createHash("sha256").update(testPath).digest("hex").slice(0, 4);
  return `demo-${name.slice(0, 20)}-${hash}`;
}

async function empty(url) {
  const res = await fetch(url, { method: "DELETE" });
  if (!res.ok) throw new Error(`DELETE ${url}: ${res.status} ${await res.text()}`);
}

class BehaviourEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    const env = this.global.process.env;
    this.ownProject = !("stack-project" in context.docblockPragmas) && Boolean(env.GCLOUD_PROJECT);
    if (this.ownProject) env.TEST_FIRESTORE_PROJECT = projectFor(context.testPath);
    this.testPath = context.testPath;
    // One lock per stack: its Hosting port tells one test stack from another on this machine.
    this.lock = this.ownProject ? null : join(tmpdir(), `identity-stack-${env.STACK_BASE_URL?.split(":").pop()}.lock`);
  }

  async setup() {
    await super.setup();
    if (this.lock !== null) return takeStack(this.lock, this.testPath);
    const env = this.global.process.env;
    // A file run again on a test stack kept running starts from nothing, as on a fresh one.
    const project = env.TEST_FIRESTORE_PROJECT;
    await empty(`http://${env.FIRESTORE_EMULATOR_HOST}/emulator/v1/projects/${project}/databases/(default)/documents`);
  }

  async teardown() {
    if (this.lock !== null) rmSync(this.lock, { recursive: true, force: true });
    await super.teardown();
  }
}

module.exports = BehaviourEnvironment;
