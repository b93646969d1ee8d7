/**
 * The operator CLI's guardrails: what it refuses, how it says so (one line, or JSON with --json;
 * never a stack trace), and what it asks before it takes something away.
 *
 * @stack-project the operator CLI runs against the stack's project, as an operator's does
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { registerApiKey } from "../../src/core/startpage/api-keys";
import { systemClock } from "../../src/clock";
import { firestore, unique } from "../support/deps";
import { operator, operatorJson as json, freshProject, STACK_TRACE } from "../support/operator-cli";
import { accountWithPerson } from "../support/people";

const base = process.env.STACK_BASE_URL as string;

// The suite's own project is the default app: made first, before any other project's app.
firestore();

// Every step starts a process (Node and firebase-admin loading): slower than a request.
jest.setTimeout(120_000);

/** The environment of an operator's machine with no Google Cloud credentials at all. */
const noCredentials = {
  HOME: mkdtempSync(join(tmpdir(), "no-credentials-")),
  CLOUDSDK_CONFIG: undefined,
  GOOGLE_APPLICATION_CREDENTIALS: undefined,
  FIRESTORE_EMULATOR_HOST: undefined,
  FIREBASE_AUTH_EMULATOR_HOST: undefined,
  METADATA_SERVER_DETECTION: undefined,
};

describe("npm run operator, against a real project without credentials", () => {
  it("says in one line what to run, with no stack trace and no metadata-server warning", async () => {
    for (const args of [
      ["people", "list", "--project", "some-project-1"],
      ["bootstrap-admin", "ada@example.com", "--project", "some-project-1"],
    ]) {
      const run = await operator(args, noCredentials);
      expect({ args, code: run.code, stdout: run.stdout }).toEqual({ args, code: 1, stdout: "" });
      expect(run.stderr.trim().split("\n")).toHaveLength(1);
      expect(run.stderr).toMatch(/no Google Cloud credentials: run `gcloud auth application-default login`/);
      expect(run.stderr).toContain("gcloud auth application-default set-quota-project some-project-1");
      expect(run.stderr).not.toMatch(STACK_TRACE);
      expect(run.stderr).not.toContain("MetadataLookupWarning");
    }
  });

  it("answers JSON on stderr with --json", async () => {
    const run = await operator(["people", "list", "--project", "some-project-1", "--json"], noCredentials);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stderr)).toEqual({
      error: { code: "refused", command: "people list", message: expect.stringMatching(/no Google Cloud credentials/) },
    });
  });

  it("doctor says which secrets it cannot read and why, and fails the placeholders, without a stack trace", async () => {
    const run = await operator(["doctor", "--project", "some-project-1", "--json"], noCredentials);
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as {
      ok: boolean;
      checks: Array<{ name: string; ok: boolean; detail: string }>;
    };
    const check = (name: string) => report.checks.find((c) => c.name === name);
    expect(report.ok).toBe(false);
    expect(check("Google Cloud credentials")?.detail).toMatch(/gcloud auth application-default login/);
    for (const secret of ["SESSION_KEYS", "CODE_PEPPER", "IDP_SIGNING_SECRET"])
      expect(check(secret)).toMatchObject({ ok: false, detail: expect.stringMatching(/^cannot read, because /) });
    expect(check("PARENT_DOMAIN")).toMatchObject({ ok: false, detail: expect.stringMatching(/placeholder/) });
    expect(check("firestore")).toMatchObject({ ok: false, detail: expect.stringMatching(/no credentials/) });
    expect(run.stderr).not.toMatch(STACK_TRACE);
    expect(run.stderr).not.toContain("MetadataLookupWarning");
  });
});

describe("npm run operator guardrails", () => {
  it("never unmakes, rejects or demotes the last approved admin; does once there is another", async () => {
    const { env, db } = freshProject();
    const boss = await json<{ person: { id: string } }>(["bootstrap-admin", "boss@example.test"], env);
    for (const args of [
      ["people", "unmake-admin", "boss@example.test", "--yes"],
      ["people", "reject", "boss@example.test", "--yes"],
    ]) {
      const run = await operator(args, env);
      expect({ args, code: run.code }).toEqual({ args, code: 1 });
      expect(run.stderr).toMatch(/The last approved administrator cannot be removed/);
    }
    expect((await db.collection("people").doc(boss.person.id).get()).data()).toMatchObject({
      role: "admin",
      status: "approved",
    });
    // A second admin: now the first may go.
    const { person: second } = await accountWithPerson({ status: "approved" }, db);
    await json(["people", "make-admin", second.id], env);
    await json(["people", "unmake-admin", "boss@example.test", "--yes"], env);
    const last = await operator(["people", "reject", second.id, "--yes"], env);
    expect(last.code).toBe(1);
    expect((await db.collection("people").doc(second.id).get()).data()).toMatchObject({ role: "admin" });
  });

  it("refuses a grant of a project no app declares, naming the nearest, unless --force", async () => {
    const { person } = await accountWithPerson({ status: "approved", projects: [] });
    const misspelt = await operator(["people", "grant", person.id, "startpgae"]);
    expect(misspelt.code).toBe(1);
    expect(misspelt.stderr).toMatch(/no app declares the project "startpgae".*did you mean "startpage"\?.*--force/);
    expect((await firestore().collection("people").doc(person.id).get()).get("projects")).toEqual([]);
    await json(["people", "grant", person.id, "startpage"]);
    await json(["people", "grant", person.id, "desk-app", "--force"]);
    expect((await firestore().collection("people").doc(person.id).get()).get("projects")).toEqual([
      "startpage",
      "desk-app",
    ]);
  });

  it("asks before taking something away, and without a terminal wants --yes; nothing changes meanwhile", async () => {
    const { person } = await accountWithPerson({ status: "approved", projects: ["startpage"] });
    for (const args of [
      ["people", "reject", person.id],
      ["people", "revoke", person.id, "startpage"],
    ]) {
      const run = await operator(args);
      expect({ args, code: run.code }).toEqual({ args, code: 2 });
      expect(run.stderr).toMatch(/confirm with --yes/);
    }
    expect((await firestore().collection("people").doc(person.id).get()).data()).toMatchObject({
      status: "approved",
      projects: ["startpage"],
    });
  });

  it("answers errors as JSON on stderr with --json: bad arguments (2), refusals (1), unknown commands (2)", async () => {
    const usage = await operator(["people", "list", "--status", "maybe", "--json"]);
    expect(usage.code).toBe(2);
    expect(JSON.parse(usage.stderr)).toMatchObject({
      error: { code: "usage", message: expect.stringMatching(/--status/) },
    });
    const refused = await operator(["people", "show", "nobody@example.test", "--format", "json"]);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stderr)).toMatchObject({ error: { code: "refused", command: "people show" } });
    const unknown = await operator(["clients", "enabel", "x", "--json"]);
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.stderr)).toMatchObject({
      error: { code: "unknown_command", suggestion: "clients enable" },
    });
    for (const run of [usage, refused, unknown]) expect(run.stdout).toBe("");
  });

  it("enables a disabled client again: the token endpoint authenticates it through the stack", async () => {
    const clientId = unique("cli-enable");
    const { clientSecret } = await json<{ clientSecret: string }>([
      "clients",
      "register",
      clientId,
      "--name",
      "App",
      "--redirect-uri",
      "https://app.example.test/cb",
    ]);
    await json(["clients", "disable", clientId, "--yes"]);
    expect((await firestore().collection("oidcClients").doc(clientId).get()).get("disabled")).toBe(true);
    const enabled = await json<{ disabled: boolean }>(["clients", "enable", clientId]);
    expect(enabled.disabled).toBe(false);
    const res = await fetch(`${base}/auth/oidc/token`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code: "never-issued",
        redirect_uri: "https://app.example.test/cb",
        client_id: clientId,
        client_secret: clientSecret,
        code_verifier: randomBytes(32).toString("base64url"),
      }),
    });
    // Authenticated: the refusal is about the code, not the client.
    expect(((await res.json()) as { error: string }).error).toBe("invalid_grant");
  });

  it("revokes one API key by its id where two share a prefix, and lists keys under a header", async () => {
    const prefix = `k${randomHex()}`.slice(0, 8);
    const deps = { store: firestore(), clock: systemClock };
    const one = await registerApiKey(deps, `${prefix}-first-${randomHex()}`, "first");
    const two = await registerApiKey(deps, `${prefix}-second-${randomHex()}`, "second");
    expect(one.prefix).toBe(two.prefix);
    await json(["api-keys", "revoke", one.id, "--yes"]);
    const listed = await json<Array<{ id: string; revokedAt: string | null }>>([
      "api-keys",
      "list",
      "--prefix",
      prefix,
    ]);
    expect(listed.find((k) => k.id === one.id)?.revokedAt).toEqual(expect.any(String));
    expect(listed.find((k) => k.id === two.id)?.revokedAt).toBeNull();
    const text = await operator(["api-keys", "list", "--prefix", prefix]);
    expect(text.stdout.split("\n")[0]).toMatch(/^ID\s+PREFIX\s+CREATED\s+REVOKED\s+LABEL$/);
    const prefixNotId = await operator(["api-keys", "revoke", prefix]);
    expect(prefixNotId.code).toBe(2);
    expect(prefixNotId.stderr).toMatch(/not a key id .* a prefix goes with --prefix/);
  });
});

const randomHex = () => randomBytes(6).toString("hex");
