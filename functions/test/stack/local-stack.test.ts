/**
 * `npm start` as an operator meets it: in a checkout of its own (this one's files as a clone has
 * them, so nothing here touches this checkout's local data), on shifted ports, with the operator
 * CLI run there with no variables set. Its data survives a restart and is gone after --fresh; a
 * rotated key reaches the running functions; an event reaches its webhook inbox, signed.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { operator, operatorJson } from "../support/operator-cli";

const ROOT = join(__dirname, "..", "..", "..");
/** Clear of the test profile's ports at every offset in use (they stay below 12000). */
const SHIFT = 20000 + Number(process.env.TEST_PORT_OFFSET ?? 0);
const PORTS = Object.fromEntries(
  Object.entries({
    HOSTING_PORT: 5000,
    FUNCTIONS_PORT: 5001,
    AUTH_PORT: 9099,
    FIRESTORE_PORT: 8080,
    HUB_PORT: 4400,
    LOGGING_PORT: 4500,
    TASKS_PORT: 9499,
    MAIL_SMTP_PORT: 1025,
    MAIL_WEB_PORT: 1080,
    GAMING_PROVIDER_PORT: 5010,
    FEDERATED_PROVIDER_PORT: 5015,
    HOOK_INBOX_PORT: 5020,
    HTTPS_PORT: 5443,
  }).map(([name, port]) => [name, String(port + SHIFT)]),
);
const service = `http://127.0.0.1:${PORTS.HOSTING_PORT}`;
const authApi = `http://127.0.0.1:${PORTS.AUTH_PORT}/identitytoolkit.googleapis.com/v1`;
const hookInbox = `http://127.0.0.1:${PORTS.HOOK_INBOX_PORT}`;

let checkout: string;
let stack: ChildProcess | null = null;

/** An operator's shell: nothing in it says where a stack is. */
const shell = () => ({ PATH: process.env.PATH, HOME: process.env.HOME, LANG: "C.UTF-8" });

/** The files of this checkout that a clone has (tracked, or new and not ignored); its installs linked. */
function cloneCheckout(): string {
  const dir = mkdtempSync(join(tmpdir(), "checkout-"));
  const listed = spawnSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: ROOT,
    encoding: "utf8",
  });
  for (const file of listed.stdout.split("\0").filter((f) => f !== "" && existsSync(join(ROOT, f)))) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    cpSync(join(ROOT, file), join(dir, file));
  }
  for (const modules of ["node_modules", join("functions", "node_modules")])
    symlinkSync(join(ROOT, modules), join(dir, modules));
  // The build the suite's stack made, with its stamp: the clone's stack need not build again.
  cpSync(join(ROOT, "functions", "lib"), join(dir, "functions", "lib"), { recursive: true, preserveTimestamps: true });
  mkdirSync(join(dir, ".stack"));
  const stamp = join(ROOT, ".stack", "functions-build.json");
  if (existsSync(stamp)) cpSync(stamp, join(dir, ".stack", "functions-build.json"));
  return dir;
}

const located = () => join(checkout, ".stack", "local-stack.json");

async function start(...options: string[]): Promise<void> {
  const log = openSync(join(checkout, "stack.log"), "a");
  const child = spawn(process.execPath, [join(checkout, "tools", "stack.ts"), "start", ...options], {
    cwd: checkout,
    env: { ...shell(), ...PORTS },
    stdio: ["ignore", log, log],
  });
  stack = child;
  const deadline = performance.now() + 240_000;
  while (!existsSync(located())) {
    if (child.exitCode !== null || performance.now() > deadline) {
      const tail = readFileSync(join(checkout, "stack.log"), "utf8").split("\n").slice(-30).join("\n");
      throw new Error(`npm start did not come up:\n${tail}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** SIGTERM, as to `npm start`: the stack exports its data and stops every process. */
async function stop(): Promise<void> {
  const child = stack;
  stack = null;
  if (child === null || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

/** The operator CLI as `npm run operator` runs it in that checkout, from a shell with no stack variables. */
const cli = (args: string[]) =>
  operator(args, {}, { entry: join(checkout, "tools", "operator.ts"), cwd: checkout, base: shell() });
const cliJson = <T>(args: string[]) =>
  operatorJson<T>(args, {}, { entry: join(checkout, "tools", "operator.ts"), cwd: checkout, base: shell() });

async function identityToolkit(path: string, body: unknown, owner = false): Promise<Record<string, unknown>> {
  const res = await fetch(`${authApi}/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(owner ? { authorization: "Bearer owner" } : {}) },
    body: JSON.stringify(body),
  });
  return (await res.json()) as Record<string, unknown>;
}

const signIn = (email: string, password: string) =>
  identityToolkit("accounts:signInWithPassword?key=any", { email, password, returnSecureToken: true });

/** A session opened for `project`, as an app's page opens one: the cookie's token, decoded. */
async function sessionHeader(idToken: string): Promise<{ kid: string }> {
  const res = await fetch(`${service}/auth/verify`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ idToken, project: "startpage" }),
  });
  const token = /__session=([^;]+)/.exec(res.headers.get("set-cookie") ?? "")?.[1] ?? "";
  return JSON.parse(Buffer.from(token.split(".")[0] ?? "", "base64url").toString("utf8")) as { kid: string };
}

jest.setTimeout(600_000);

beforeAll(async () => {
  checkout = cloneCheckout();
  await start();
});

afterAll(async () => {
  await stop();
  rmSync(checkout, { recursive: true, force: true });
});

describe("npm start, and the operator CLI beside it", () => {
  it("finds the stack on its shifted ports with no variables set: status, people, doctor", async () => {
    const status = await cliJson<{
      projectId: string;
      emulators: boolean;
      firestore: string;
      tasks: string;
      chosenBy: string;
      stack: { urls: Record<string, string> };
    }>(["status"]);
    expect(status).toMatchObject({
      projectId: "demo-identity",
      emulators: true,
      firestore: `127.0.0.1:${PORTS.FIRESTORE_PORT}`,
      // Where a command wakes the stack's `mail` function for the mail it queues.
      tasks: `127.0.0.1:${PORTS.TASKS_PORT}`,
      chosenBy: expect.stringMatching(/the running local stack/),
    });
    expect(status.stack.urls).toMatchObject({ service, hub: `http://127.0.0.1:${PORTS.HUB_PORT}` });
    const people = await cli(["people", "list"]);
    expect(people.stdout.split("\n")[0]).toMatch(/^ID\s+EMAIL OR PHONE\s+STATUS\s+ROLE\s+PROJECTS\s+NAME$/);
    expect(people.stdout).toContain("admin@example.test");
    expect(people.stderr).toBe("");
    const doctor = await cli(["doctor"]);
    expect(doctor.stdout).toContain(`mail (SMTP): 220`);
    expect({ code: doctor.code, out: doctor.stdout }).toEqual({
      code: 0,
      out: expect.stringContaining("all required checks pass"),
    });
  });

  it("applies a rotated session key to the running stack: published at once, signing once promoted", async () => {
    const rotated = await cliJson<{ kid: string; effect: string }>(["keys", "rotate-session-key", "--apply"]);
    expect(rotated.effect).toMatch(/showed it after/);
    const jwks = (await (await fetch(`${service}/auth/oidc/jwks`)).json()) as { keys: Array<{ kid: string }> };
    expect(jwks.keys.map((k) => k.kid)).toHaveLength(2);
    expect(jwks.keys.map((k) => k.kid)).toContain(rotated.kid);
    const admin = await signIn("admin@example.test", "admin-password");
    expect((await sessionHeader(String(admin.idToken))).kid).not.toBe(rotated.kid);
    await cliJson(["keys", "promote-session-key", rotated.kid, "--apply"]);
    expect((await sessionHeader(String(admin.idToken))).kid).toBe(rotated.kid);
  });

  it("subscribes the seed's app to the webhook inbox, which shows an approval's event arrive, verified", async () => {
    const hooks = await cliJson<Array<{ app: string; url: string; events: string[]; disabled: boolean }>>([
      "hooks",
      "list",
    ]);
    expect(hooks).toEqual([
      expect.objectContaining({ app: "startpage", url: `${hookInbox}/startpage`, events: ["*"], disabled: false }),
    ]);
    const email = "hooked@example.test";
    await identityToolkit(
      "projects/demo-identity/accounts",
      { email, password: "hooked-password", emailVerified: true },
      true,
    );
    const signedIn = await signIn(email, "hooked-password");
    const verify = await fetch(`${service}/auth/verify`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ idToken: signedIn.idToken, project: "startpage" }),
    });
    expect(await verify.json()).toMatchObject({ approved: false, reason: "pending" });
    const person = await cliJson<{ id: string }>(["people", "show", email]);
    await cliJson(["people", "approve", email]);

    type Delivery = { verified: boolean; failure: string | null; body: { type?: string; personId?: string } };
    const approval = async () => {
      const res = await fetch(`${hookInbox}/deliveries?app=startpage`);
      const { deliveries } = (await res.json()) as { deliveries: Delivery[] };
      return deliveries.find((d) => d.body.type === "person.approved" && d.body.personId === person.id);
    };
    let arrived = await approval();
    for (const until = performance.now() + 30_000; arrived === undefined && performance.now() < until;) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      arrived = await approval();
    }
    expect(arrived).toMatchObject({ verified: true, failure: null });
    const page = await (await fetch(`${hookInbox}/`)).text();
    expect(page).toMatch(/person\.approved to startpage<\/h2><p class="ok"><strong>The signature verifies\./);
  });

  it("keeps a person, a client and an API key made on it across a restart; --fresh starts from the seed", async () => {
    const email = "kept@example.test";
    await identityToolkit(
      "projects/demo-identity/accounts",
      { email, password: "kept-password", emailVerified: true },
      true,
    );
    const signedIn = await signIn(email, "kept-password");
    const verify = await fetch(`${service}/auth/verify`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ idToken: signedIn.idToken, project: "startpage" }),
    });
    expect(await verify.json()).toMatchObject({ approved: false, reason: "pending" });
    const person = await cliJson<{ id: string; status: string }>(["people", "show", email]);
    await cliJson([
      "clients",
      "register",
      "kept-client",
      "--name",
      "Kept",
      "--redirect-uri",
      "https://kept.example.test/cb",
    ]);
    const key = await cliJson<{ id: string }>(["api-keys", "issue", "kept key"]);

    await stop();
    await start();
    expect(await cliJson<{ id: string }>(["people", "show", email])).toMatchObject({
      id: person.id,
      status: "pending",
    });
    expect(await cliJson(["clients", "show", "kept-client"])).toMatchObject({ name: "Kept", disabled: false });
    expect((await cliJson<Array<{ id: string }>>(["api-keys", "list"])).map((k) => k.id)).toContain(key.id);
    expect(await signIn(email, "kept-password")).toMatchObject({ email });
    // The seed ran again over the kept data: still the one subscription.
    expect((await cliJson<Array<{ app: string }>>(["hooks", "list"])).map((h) => h.app)).toEqual(["startpage"]);

    await stop();
    await start("--fresh");
    expect((await cli(["people", "show", email])).stderr).toMatch(/no person has the address kept@example.test/);
    expect((await cli(["clients", "show", "kept-client"])).code).toBe(1);
    expect((await cliJson<Array<{ id: string }>>(["api-keys", "list"])).map((k) => k.id)).not.toContain(key.id);
    expect(await signIn(email, "kept-password")).toMatchObject({ error: { message: "EMAIL_NOT_FOUND" } });
    expect((await cliJson<Array<{ emails: string[] }>>(["people", "list"])).flatMap((p) => p.emails)).toContain(
      "admin@example.test",
    );
  });
});
