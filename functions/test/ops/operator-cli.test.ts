/**
 * The operator CLI (npm run operator), run as the operator runs it: the compiled entry, against the stack's emulators.
 *
 * @stack-project the operator CLI runs against the stack's project, as an operator's does
 */
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseKeyRing } from "../../src/core/sessions/session-token";
import { parsePepper } from "../../src/core/pepper";
import { sha256 } from "../../src/core/secrets";
import { invitationId } from "../../src/store/invitations";
import * as clientStore from "../../src/store/oidc-clients";
import { queuedEntry } from "../support/outbox-entries";
import { systemClock } from "../../src/clock";
import { selfRegisteredClient } from "../support/consent";
import { firestore, TEST_CODE_PEPPER, TEST_SESSION_KEYS, unique } from "../support/deps";
import { operator, operatorJson as json, freshProject, STACK_TRACE } from "../support/operator-cli";
import { newBrowser, passkeyWorld } from "../support/passkeys";
import { accountWithPerson } from "../support/people";
import { allMail } from "../support/inbox";
import { freePort } from "../support/own-firestore";

const base = process.env.STACK_BASE_URL as string;

// The suite's own project is the default app: made first, before any other project's app.
firestore();

const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString("base64")}`;

// Every step starts a process (Node and firebase-admin loading): slower than a request.
jest.setTimeout(120_000);

/** Which of `addresses` the dev inbox has mail for, once all have it or `withinMs` has passed. */
async function arrivals(addresses: string[], withinMs: number): Promise<Set<string>> {
  const wanted = new Set(addresses);
  const found = new Set<string>();
  for (let waited = 0; ; waited += 500) {
    for (const mail of await allMail())
      for (const to of mail.envelope?.to ?? []) if (wanted.has(to.address)) found.add(to.address);
    if (found.size === wanted.size || waited >= withinMs) return found;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

describe("npm run operator", () => {
  describe("help and bad arguments", () => {
    it("lists every command, and answers --help for each with its usage", async () => {
      const overview = await operator(["--help"]);
      expect(overview.code).toBe(0);
      const names = [...overview.stdout.matchAll(/^ {2}([a-z][\w-]*(?: [a-z-]+)?) {2,}/gm)].map((m) => m[1] as string);
      expect(names).toEqual(expect.arrayContaining(["people list", "bootstrap-admin", "clients register", "doctor"]));
      expect(names.length).toBeGreaterThanOrEqual(24);
      for (const name of names) {
        const help = await operator([...name.split(" "), "--help"]);
        expect({ name, code: help.code }).toEqual({ name, code: 0 });
        expect(help.stdout).toContain(`usage: npm run operator -- ${name}`);
      }
      // One process per command, sixty and more, each starting node and loading the CLI.
    }, 300_000);

    it.each([
      [["frobnicate"], /unknown command/],
      [["peple", "list"], /did you mean: npm run operator -- people list/],
      [["people", "show"], /missing arguments/],
      [["people", "show", "a", "b"], /unexpected argument/],
      [["people", "list", "--status", "maybe"], /--status must be one of/],
      [["people", "list", "--bogus"], /Unknown option/],
      [["clients", "register", "app"], /--name is required/],
      [["clients", "register", "app", "--name", "App", "--redirect-uri", "http://evil.test/cb"], /not a redirect URI/],
      [["clients", "set-pkce", "app", "sometimes"], /required" or "optional/],
      [["clients", "rotate-secret", "app", "--overlap", "a while"], /not a duration/],
      [["people", "list", "--project", "NOT A PROJECT"], /--project needs a project id/],
    ])("refuses %j with a message and exit code 2", async (args, message) => {
      const run = await operator(args);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(run.stdout).toBe("");
    });

    it("exits 1 with a message, not a stack, for a person or client that does not exist", async () => {
      for (const args of [
        ["people", "show", "nobody@example.test"],
        ["clients", "show", unique("missing")],
      ]) {
        const run = await operator(args);
        expect(run.code).toBe(1);
        expect(run.stderr).toMatch(/^(people|clients) show: (no person has the address|no OpenID Connect client) /m);
        expect(run.stderr).not.toMatch(/\n\s+at /);
      }
    });
  });

  describe("bootstrap-admin", () => {
    it("makes the first admin of an empty project, and refuses while any admin exists", async () => {
      const { env, db } = freshProject();
      const first = await json<{ person: Record<string, unknown>; created: boolean }>(
        ["bootstrap-admin", "Boss@Example.test", "--name", "Boss"],
        env,
      );
      expect(first.created).toBe(true);
      expect(first.person).toMatchObject({
        emails: ["boss@example.test"],
        role: "admin",
        status: "approved",
        projects: ["*"],
        name: "Boss",
      });
      const stored = await db
        .collection("people")
        .doc(first.person.id as string)
        .get();
      expect(stored.data()).toMatchObject({ role: "admin", status: "approved" });
      const again = await operator(["bootstrap-admin", "second@example.test"], env);
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(/an admin already exists/);
      const admins = await db.collection("people").where("role", "==", "admin").get();
      expect(admins.size).toBe(1);
    });

    it("leaves exactly one admin when several run at once", async () => {
      const { env, db } = freshProject();
      const runs = await Promise.all(
        [1, 2, 3, 4].map((i) => operator(["bootstrap-admin", `admin${i}@example.test`, "--json"], env)),
      );
      expect(runs.map((r) => r.code).sort()).toEqual([0, 1, 1, 1]);
      const admins = await db.collection("people").where("role", "==", "admin").get();
      expect(admins.size).toBe(1);
      const winner = JSON.parse(runs.find((r) => r.code === 0)?.stdout ?? "{}") as { person: { id: string } };
      expect(admins.docs[0]?.id).toBe(winner.person.id);
    });

    it("refuses an address that is not one", async () => {
      const { env } = freshProject();
      const run = await operator(["bootstrap-admin", "not-an-address"], env);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/is not an email address/);
    });
  });

  describe("status --since", () => {
    it("adds the service's health over the window, per hour with --json, and refuses another window", async () => {
      const day = await json<{ health: { window: string; buckets: string[]; outbox: Array<{ lane: string }> } }>([
        "status",
        "--since",
        "24h",
      ]);
      expect(day.health.window).toBe("24h");
      expect(day.health.buckets).toHaveLength(24);
      expect(day.health.outbox.map((l) => l.lane)).toEqual(["mail", "apps", "bulk"]);
      const text = (await operator(["status", "--since", "7d"])).stdout;
      expect(text).toMatch(/health over the last 7d .*\n {2}sign-ins: .*\n {2}email codes: sent \d+/);
      const bad = await operator(["status", "--since", "1y"]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/--since must be 24h or 7d/);
    });
  });

  describe("audit", () => {
    it("records each command that changes something once, done or refused, and lists it as CSV and JSON lines", async () => {
      const { person } = await accountWithPerson({ status: "pending", projects: [] });
      const email = person.emails[0] as string;
      await json(["people", "approve", email]);
      // Refused: there is no such person. A read (people show) is no record.
      const missing = `${unique("nobody")}@example.test`;
      expect((await operator(["people", "approve", missing])).code).toBe(1);
      await json(["people", "show", person.id]);

      type Row = {
        actorId: string;
        action: string;
        subjects: string[];
        outcome: string;
        detail: Record<string, unknown>;
      };
      const mine = await json<Row[]>(["audit", "--person", person.id]);
      expect(mine.map((r) => [r.action, r.outcome, r.subjects])).toEqual([
        ["cli.people.approve", "done", ["[address]", person.id]],
      ]);
      expect(mine[0]?.actorId).toMatch(/^operator:.+@.+/);
      expect(JSON.stringify(mine)).not.toContain(email);

      const lines = (await operator(["audit", "--kind", "operator", "--since", "1h", "--format", "jsonl"])).stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as Row);
      const refused = lines.find((r) => r.outcome === "refused" && r.action === "cli.people.approve");
      expect(refused?.detail.reason).toEqual(expect.any(String));
      expect(JSON.stringify(lines)).not.toContain(missing);

      const table = (await operator(["audit", "--person", person.id, "--format", "csv"])).stdout.trim().split("\r\n");
      expect(table[0]).toBe('"at","actor","action","subjects","outcome","via","detail","trace","id"');
      expect(table).toHaveLength(2);
      expect(table[1]).toContain('"cli.people.approve"');

      // A person named by address is recorded by id too; a URL's path and query (a hook's token) are not kept.
      const { person: other } = await accountWithPerson({ projects: ["startpage"] });
      await json(["sessions", "end", other.emails[0] as string, "--all", "--yes"]);
      expect((await json<Row[]>(["audit", "--person", other.id])).map((r) => [r.action, r.subjects])).toEqual([
        ["cli.sessions.end", ["[address]", other.id]],
      ]);
      const app = unique("audit-app-").replace(/_/g, "-");
      await operator(["hooks", "add", app, "https://hooks.example.test/in/SECRET-IN-PATH?token=s3cr3t", "--yes"]);
      const hooks = await json<Row[]>(["audit", "--kind", "operator", "--since", "1h", "--limit", "1000"]);
      const added = hooks.find((r) => r.action === "cli.hooks.add" && r.subjects.includes(app));
      expect(added?.subjects).toEqual([app, "https://hooks.example.test"]);
      expect(JSON.stringify(hooks)).not.toMatch(/SECRET-IN-PATH|s3cr3t/);

      const bad = await operator(["audit", "--kind", "everything"]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/--kind must be one of/);
    });
  });

  describe("people", () => {
    it("approves, grants, revokes and makes admin a person named by address, and lists them by filter", async () => {
      const { person } = await accountWithPerson({ status: "pending", projects: [] });
      const email = person.emails[0] as string;
      expect((await json<{ person: { status: string } }>(["people", "approve", email])).person.status).toBe("approved");
      await json(["people", "grant", person.id, "alpha", "--force"]);
      await json(["people", "grant", email, "beta", "--force"]);
      const revoked = await json<{ person: { projects: string[] } }>(["people", "revoke", email, "alpha", "--yes"]);
      expect(revoked.person.projects).toEqual(["beta"]);
      const inBeta = await json<Array<{ id: string }>>([
        "people",
        "list",
        "--status",
        "approved",
        "--in-project",
        "beta",
      ]);
      expect(inBeta.map((p) => p.id)).toContain(person.id);
      const inAlpha = await json<Array<{ id: string }>>(["people", "list", "--in-project", "alpha"]);
      expect(inAlpha.map((p) => p.id)).not.toContain(person.id);
      const made = await json<{ person: { role: string } }>(["people", "make-admin", email]);
      expect(made.person.role).toBe("admin");
      const admins = await json<Array<{ id: string }>>(["people", "list", "--role", "admin", "--in-project", "beta"]);
      expect(admins.map((p) => p.id)).toContain(person.id);
      await json(["people", "unmake-admin", person.id, "--yes"]);
      await json(["people", "reject", person.id, "--yes"]);
      const shown = await json<{ role: string; status: string; projects: string[] }>(["people", "show", email]);
      expect(shown).toMatchObject({ role: "user", status: "rejected", projects: ["beta"] });
      const stored = (await firestore().collection("people").doc(person.id).get()).data();
      expect(stored).toMatchObject({ role: "user", status: "rejected", projects: ["beta"] });
    });
  });

  describe("people invite", () => {
    it("invites an address and a file's rows, once each, lists them, and revokes one", async () => {
      const email = `${unique("cli-inv")}@example.test`;
      const invited = await json<{ address: string; projects: string[]; state: string; invitedBy: { kind: string } }>([
        "people",
        "invite",
        email,
        "startpage",
        "--group",
        "crew",
        "--note",
        "Welcome",
      ]);
      expect(invited).toMatchObject({ address: email, projects: ["startpage"], state: "live" });
      expect(invited.invitedBy.kind).toBe("operator");
      const twice = await operator(["people", "invite", email, "startpage"]);
      expect(twice.code).toBe(1);
      expect(twice.stderr).toMatch(/has an invitation already/);

      const dir = mkdtempSync(join(tmpdir(), "invite-"));
      const rows = [`${unique("cli-row")}@example.test`, `${unique("cli-row")}@example.test`];
      const file = join(dir, "people.csv");
      writeFileSync(file, `address,projects\n${rows[0]},startpage\n${rows[1]},startpage;calendar\n`);
      const dry = await json<{ counts: { invited: number } }>(["people", "invite", "--file", file, "--dry-run"]);
      expect(dry.counts.invited).toBe(2);
      expect((await firestore().collection("invitations").where("address", "==", rows[0]).get()).size).toBe(0);
      const first = await json<{ counts: Record<string, number> }>(["people", "invite", "--file", file]);
      expect(first.counts).toEqual({ invited: 2, "already-invited": 0, held: 0 });
      const again = await json<{ counts: Record<string, number> }>(["people", "invite", "--file", file]);
      expect(again.counts).toEqual({ invited: 0, "already-invited": 2, held: 0 });

      const bad = join(dir, "bad.csv");
      writeFileSync(
        bad,
        `address,projects\n${unique("ok")}@example.test,startpage\nnope,startpage\n${unique("cut")}@example.test\n`,
      );
      const refused = await operator(["people", "invite", "--file", bad]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`${bad}:3: the address is not an email address`);
      expect(refused.stderr).toContain(`${bad}:4: it has 1 field; the header names 2`);

      const listed = await json<Array<{ address: string }>>(["people", "invitations", "--limit", "200"]);
      expect(listed.map((i) => i.address)).toEqual(expect.arrayContaining([email, ...rows]));
      await json(["people", "revoke-invitation", email, "--yes"]);
      expect((await firestore().collection("invitations").where("address", "==", email).get()).size).toBe(0);
    });
  });

  describe("a long answer", () => {
    it("reaches a pipe whole: a dry run of a thousand rows as JSON", async () => {
      const file = join(mkdtempSync(join(tmpdir(), "invite-")), "people.csv");
      const rows = Array.from({ length: 1000 }, (_, i) => `${unique("long")}-${i}@example.test`);
      writeFileSync(file, ["address,projects", ...rows.map((r) => `${r},startpage`)].join("\n"));
      // execFile reads stdout through a pipe, as `| jq` does: an exit before it is written cuts it.
      const run = await operator(["people", "invite", "--file", file, "--dry-run", "--json"]);
      expect(run.code).toBe(0);
      expect(run.stdout.length).toBeGreaterThan(128 * 1024);
      const dry = JSON.parse(run.stdout) as { rows: unknown[]; counts: { invited: number } };
      expect([dry.rows.length, dry.counts.invited]).toEqual([1000, 1000]);
    });
  });

  describe("people invite --file, on the local stack", () => {
    it("exits once the file is queued, and the stack's `mail` function sends every invitation with no other request", async () => {
      const rows = Array.from({ length: 30 }, () => `${unique("woken")}@example.test`);
      const file = join(mkdtempSync(join(tmpdir(), "invite-")), "people.csv");
      writeFileSync(file, ["address,projects", ...rows.map((r) => `${r},startpage`)].join("\n"));
      // The command is given a mail server where nothing listens: whatever arrives was sent by the
      // stack's own `mail` function, woken by the task the command left in its Cloud Tasks emulator.
      const nowhere = { SMTP_HOST: "127.0.0.1", SMTP_PORT: String(await freePort()) };
      const run = await json<{ counts: Record<string, number> }>(["people", "invite", "--file", file], nowhere);
      expect(run.counts.invited).toBe(30);
      // From here on, nothing but reading the inbox: no request that could wake the stack's mail.
      const arrived = await arrivals(rows, 90_000);
      expect(rows.filter((r) => !arrived.has(r))).toEqual([]);
      // Mailed: they go, so the stack's /invite page (pages-invitations) lists no more than it did.
      const batch = firestore().batch();
      for (const r of rows) batch.delete(firestore().collection("invitations").doc(invitationId(r)));
      await batch.commit();
    });
  });

  describe("people remove-passkeys", () => {
    it("removes every passkey of a person named by address, after which none signs in", async () => {
      const w = passkeyWorld();
      const { person, authenticator } = await w.withPasskey();
      const out = await json<{ removed: number; person: { id: string } }>([
        "people",
        "remove-passkeys",
        person.emails[0] as string,
        "--yes",
      ]);
      expect(out).toMatchObject({ removed: 1, person: { id: person.id } });
      expect((await w.signIn(newBrowser(), authenticator)).status).toBe(401);
      expect((await json<{ removed: number }>(["people", "remove-passkeys", person.id, "--yes"])).removed).toBe(0);
      const unconfirmed = await operator(["people", "remove-passkeys", person.id]);
      expect(unconfirmed.code).toBe(2);
      expect(unconfirmed.stderr).toContain("confirm with --yes");
    });
  });

  describe("hooks", () => {
    it("subscribes an app, prints its secret once, and the app gets a signed event of an approval", async () => {
      const got: Array<{ headers: Record<string, string>; body: string }> = [];
      const receiver = createServer((req, res) => {
        let body = "";
        req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
        req.on("end", () => {
          got.push({ headers: req.headers as Record<string, string>, body });
          res.statusCode = 204;
          res.end();
        });
      });
      await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
      const app = unique("cli-app-").replace(/_/g, "-");
      try {
        const added = await json<{ secret: string; hook: { events: string[] } }>([
          "hooks",
          "add",
          app,
          url,
          "--event",
          "person.approved",
        ]);
        expect(added.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
        expect(added.hook.events).toEqual(["person.approved"]);
        // Shown once: sealed in the store, never listed.
        const stored = JSON.stringify((await firestore().collection("hooks").doc(app).get()).data());
        expect(stored).not.toContain(added.secret.slice("whsec_".length));
        for (const args of [
          ["hooks", "list"],
          ["hooks", "show", app],
        ]) {
          const shown = await operator([...args, "--json"]);
          expect(shown.code).toBe(0);
          expect(shown.stdout).toContain(app);
          expect(shown.stdout).not.toContain(added.secret.slice("whsec_".length));
        }
        const plain = await operator([
          "hooks",
          "add",
          unique("elsewhere-").replace(/_/g, "-"),
          "http://example.com/hooks",
        ]);
        expect(plain.code).not.toBe(0);
        expect(plain.stderr).toContain("https only");

        const { person } = await accountWithPerson({ status: "pending", projects: [] });
        await json(["people", "approve", person.emails[0] as string]);
        for (let waited = 0; got.length === 0 && waited < 15_000; waited += 100)
          await new Promise((resolve) => setTimeout(resolve, 100));
        expect(got).toHaveLength(1);
        const event = new Webhook(added.secret).verify(got[0]?.body as string, got[0]?.headers ?? {}) as {
          type: string;
          personId: string;
        };
        expect(event).toMatchObject({ type: "person.approved", personId: person.id });
        const deliveries = await json<Array<{ eventId: string; state: string }>>(["hooks", "deliveries", app]);
        expect(deliveries).toEqual([expect.objectContaining({ state: "delivered" })]);
        // doctor asks the app's address whether it answers, and says how its deliveries went.
        const secrets = { SESSION_KEYS: TEST_SESSION_KEYS, CODE_PEPPER: TEST_CODE_PEPPER };
        const doctor = JSON.parse((await operator(["doctor", "--json"], secrets)).stdout) as {
          checks: Array<{ name: string; ok: boolean; detail: string; required: boolean }>;
        };
        expect(doctor.checks).toContainEqual({
          name: `events to ${app}`,
          ok: true,
          detail: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/hooks answers; last delivered 20/),
          required: false,
        });
        receiver.closeAllConnections();
        receiver.close();
        const down = JSON.parse((await operator(["doctor", "--json"], secrets)).stdout) as typeof doctor;
        expect(down.checks).toContainEqual(
          expect.objectContaining({ name: `events to ${app}`, ok: false, required: false }),
        );
      } finally {
        await operator(["hooks", "remove", app, "--yes"]);
        if (receiver.listening) receiver.close();
      }
      expect((await firestore().collection("hooks").doc(app).get()).exists).toBe(false);
    });
  });

  describe("clients", () => {
    it("prints a secret once that authenticates at the token endpoint through the stack, storing only its hash", async () => {
      const clientId = unique("cli-client");
      const registered = await json<{ clientSecret: string; client: { pkce: string } }>([
        "clients",
        "register",
        clientId,
        "--name",
        "CLI app",
        "--redirect-uri",
        "https://app.example.test/callback",
      ]);
      expect(registered.client.pkce).toBe("required");
      const stored = (await firestore().collection("oidcClients").doc(clientId).get()).data();
      expect(JSON.stringify(stored)).not.toContain(registered.clientSecret);
      expect(JSON.stringify(stored)).toContain(sha256(registered.clientSecret));
      const token = (secret: string) =>
        fetch(`${base}/auth/oidc/token`, {
          method: "POST",
          headers: { Authorization: basic(clientId, secret), "Content-Type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({
            grant_type: "authorization_code",
            code: "never-issued",
            redirect_uri: "https://app.example.test/callback",
            code_verifier: randomBytes(32).toString("base64url"),
          }),
        });
      // Authenticated: the refusal is about the code, not the client.
      const good = await token(registered.clientSecret);
      expect(good.status).toBe(400);
      expect(((await good.json()) as { error: string }).error).toBe("invalid_grant");
      const wrong = await token(randomBytes(32).toString("base64url"));
      expect(wrong.status).toBe(401);
      expect(((await wrong.json()) as { error: string }).error).toBe("invalid_client");
      const twice = await operator([
        "clients",
        "register",
        clientId,
        "--name",
        "Again",
        "--redirect-uri",
        "https://a.test/cb",
      ]);
      expect(twice.code).toBe(1);
      expect(twice.stderr).toMatch(/already registered/);
    });

    it("changes redirect URIs, the PKCE policy, rotates with an overlap, disables, lists and shows", async () => {
      const clientId = unique("cli-client");
      await json([
        "clients",
        "register",
        clientId,
        "--name",
        "App",
        "--redirect-uri",
        "https://a.test/cb",
        "--pkce",
        "optional",
      ]);
      await json(["clients", "add-redirect", clientId, "http://127.0.0.1:8765/cb"]);
      await json(["clients", "remove-redirect", clientId, "https://a.test/cb", "--yes"]);
      await json(["clients", "set-pkce", clientId, "required"]);
      const rotated = await json<{
        clientSecret: string;
        client: { secrets: Array<{ createdAt: string; expiresAt: string | null }> };
      }>(["clients", "rotate-secret", clientId, "--overlap", "2h"]);
      expect(rotated.client.secrets).toHaveLength(2);
      expect(rotated.client.secrets[0]?.expiresAt).toBeNull();
      // The old secret works until two hours after the new one was made.
      const until = Date.parse(rotated.client.secrets[1]?.expiresAt ?? "");
      expect(until - Date.parse(rotated.client.secrets[0]?.createdAt ?? "")).toBe(2 * 3600_000);
      await json(["clients", "disable", clientId, "--yes"]);
      const shown = await json(["clients", "show", clientId]);
      expect(shown).toMatchObject({ redirectUris: ["http://127.0.0.1:8765/cb"], pkce: "required", disabled: true });
      expect(JSON.stringify(shown)).not.toContain(sha256(rotated.clientSecret));
      const listed = await json<Array<{ clientId: string }>>(["clients", "list"]);
      expect(listed.map((c) => c.clientId)).toContain(clientId);
    });

    it("reviews a client that registered itself: lists it, approves it, blocks it, and reviews no client of its own", async () => {
      const clientId = `dyn_${unique("cli")}`;
      await selfRegisteredClient({ store: firestore(), clock: systemClock }, clientId, {
        name: "Self-made agent",
        redirectUris: ["http://127.0.0.1/cb"],
        review: "waiting",
      });
      const table = await operator(["clients", "list"]);
      expect(table.stdout).toMatch(new RegExp(`${clientId}.*self.*waiting`));
      expect(await json(["clients", "approve", clientId])).toMatchObject({ clientId, review: "approved" });
      const unasked = await operator(["clients", "block", clientId]);
      // Not without --yes: a usage refusal, and the client stays as it was.
      expect(unasked.code).toBe(2);
      expect(unasked.stderr).toMatch(/--yes/);
      expect((await clientStore.findById(firestore(), clientId))?.review).toBe("approved");
      expect(await json(["clients", "block", clientId, "--yes"])).toMatchObject({ clientId, review: "blocked" });
      const own = unique("cli-own");
      await json(["clients", "register", own, "--name", "Own", "--redirect-uri", "https://a.test/cb"]);
      const refused = await operator(["clients", "approve", own]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/registered by the operator/);
    });

    it("removes a client that registered itself with the consents it was given, once asked, and no client of its own", async () => {
      const clientId = `dyn_${unique("cli")}`;
      await selfRegisteredClient({ store: firestore(), clock: systemClock }, clientId, { name: "Gone agent" });
      const consent = firestore().collection("oidcConsents").doc(unique("consent"));
      const at = systemClock.now();
      await consent.set({
        personId: unique("p"),
        clientId,
        resource: "",
        scopes: ["openid"],
        givenAt: at,
        updatedAt: at,
      });
      const unasked = await operator(["clients", "remove", clientId]);
      expect(unasked.code).toBe(2);
      expect(await clientStore.findById(firestore(), clientId)).not.toBeNull();
      const removed = await operator(["clients", "remove", clientId, "--yes"]);
      expect(removed.code).toBe(0);
      expect(removed.stdout).toContain(`removed client: ${clientId} (Gone agent)`);
      expect(removed.stdout).toMatch(/^consents: 1$/m);
      expect(await clientStore.findById(firestore(), clientId)).toBeNull();
      expect((await consent.get()).exists).toBe(false);
      const again = await operator(["clients", "remove", clientId, "--yes"]);
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(/no OpenID Connect client/);

      const own = unique("cli-own");
      await json(["clients", "register", own, "--name", "Own", "--redirect-uri", "https://a.test/cb"]);
      const refused = await operator(["clients", "remove", own, "--yes"]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/registered by the operator.*disable it instead/);
      expect(await clientStore.findById(firestore(), own)).not.toBeNull();
    });

    it("registers a client for refresh tokens, takes them away only once asked, and keeps its logout addresses", async () => {
      const clientId = unique("cli-offline");
      const { client } = await json<{ client: { refreshTokens: boolean } }>([
        "clients",
        "register",
        clientId,
        "--name",
        "Sync",
        "--redirect-uri",
        "https://a.test/cb",
        "--refresh-tokens",
      ]);
      expect(client.refreshTokens).toBe(true);
      const shown = await operator(["clients", "show", clientId]);
      expect(shown.stdout).toMatch(/^refresh tokens: allowed/m);
      const unasked = await operator(["clients", "set-refresh-tokens", clientId, "off"]);
      expect(unasked.code).not.toBe(0);
      expect(await json(["clients", "show", clientId])).toMatchObject({ refreshTokens: true });
      await json(["clients", "set-refresh-tokens", clientId, "off", "--yes"]);
      expect(await json(["clients", "show", clientId])).toMatchObject({ refreshTokens: false });
      const back = await json<{ postLogoutRedirectUris: string[] }>([
        "clients",
        "add-post-logout",
        clientId,
        "https://a.test/signed-out",
      ]);
      expect(back.postLogoutRedirectUris).toEqual(["https://a.test/signed-out"]);
      const bad = await operator(["clients", "add-post-logout", clientId, "http://a.test/plain"]);
      expect(bad.code).not.toBe(0);
      const gone = await json<{ postLogoutRedirectUris: string[] }>([
        "clients",
        "remove-post-logout",
        clientId,
        "https://a.test/signed-out",
      ]);
      expect(gone.postLogoutRedirectUris).toEqual([]);
      const told = await json<{ backchannelLogoutUri: string | null }>([
        "clients",
        "set-backchannel",
        clientId,
        "https://a.test/backchannel",
      ]);
      expect(told.backchannelLogoutUri).toBe("https://a.test/backchannel");
      expect((await operator(["clients", "set-backchannel", clientId, "http://a.test/plain"])).code).not.toBe(0);
      expect(await json(["clients", "set-backchannel", clientId, "none"])).toMatchObject({
        backchannelLogoutUri: null,
      });
      const plain = unique("cli-online");
      await json(["clients", "register", plain, "--name", "Plain", "--redirect-uri", "https://a.test/cb"]);
      expect(await json(["clients", "show", plain])).toMatchObject({ refreshTokens: false, project: null });
      const bound = unique("cli-bound");
      const made = await json<{ client: { project: string | null } }>([
        ...["clients", "register", bound, "--name", "Desk", "--redirect-uri", "https://a.test/cb"],
        ...["--needs-project", "desk"],
      ]);
      expect(made.client.project).toBe("desk");
      expect((await operator(["clients", "show", bound])).stdout).toMatch(/^project: desk \(only people granted it/m);
      expect(await json(["clients", "set-project", bound, "none"])).toMatchObject({ project: null });
      expect((await operator(["clients", "set-project", bound, "not a project"])).code).toBe(2);
    });
  });

  describe("api-keys", () => {
    it("issues a key once, lists it by prefix without the key, and revokes it by its id", async () => {
      const label = unique("cli-key");
      const { key, prefix, id } = await json<{ key: string; prefix: string; id: string }>(["api-keys", "issue", label]);
      const listed = await json<Array<{ label: string; revokedAt: string | null }>>([
        "api-keys",
        "list",
        "--prefix",
        prefix,
      ]);
      expect(listed).toContainEqual(expect.objectContaining({ label, revokedAt: null }));
      expect(JSON.stringify(listed)).not.toContain(key);
      expect((await json<{ revoked: number }>(["api-keys", "revoke", id, "--yes"])).revoked).toBe(1);
      const after = await json<Array<{ label: string; revokedAt: string | null }>>([
        "api-keys",
        "list",
        "--prefix",
        prefix,
      ]);
      expect(after.find((k) => k.label === label)?.revokedAt).toEqual(expect.any(String));
    });
  });

  describe("resources", () => {
    it("registers a resource for a client, closes and opens it, refuses a bad URL plainly, and removes it", async () => {
      const url = `https://notes.example.test/${unique("cli")}`;
      const added = await json<{ url: string; scopes: string[]; clients: string[] }>([
        "resources",
        "add",
        url,
        "--name",
        "Notes",
        "--client",
        "demo-client",
        "--scope",
        "notes:read",
        "--scope",
        "notes:write",
      ]);
      expect(added).toMatchObject({ url, scopes: ["notes:read", "notes:write"], clients: ["demo-client"] });
      const closed = await json<{ clients: string[] }>(["resources", "disallow", url, "demo-client", "--yes"]);
      expect(closed.clients).toEqual([]);
      expect((await json<{ clients: string[] }>(["resources", "allow", url, "demo-client"])).clients).toEqual([
        "demo-client",
      ]);
      const unknown = await operator(["resources", "allow", url, unique("nobody")]);
      expect(unknown.code).not.toBe(0);
      expect(unknown.stderr).toContain("no OpenID Connect client");
      expect(await json<Array<{ url: string }>>(["resources", "list"])).toContainEqual(
        expect.objectContaining({ url }),
      );
      const refused = await operator([
        "resources",
        "add",
        "http://notes.example.test/x",
        "--name",
        "Notes",
        "--client",
        "demo-client",
      ]);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain("absolute https URL");
      expect(refused.stderr).not.toMatch(STACK_TRACE);
      // Open to agents, and closed again; one open from the start names no client at all.
      expect((await json<{ agents: boolean }>(["resources", "open-to-agents", url])).agents).toBe(true);
      expect((await json<{ agents: boolean }>(["resources", "close-to-agents", url, "--yes"])).agents).toBe(false);
      const forAgents = `https://mcp.example.test/${unique("cli")}`;
      expect(
        await json(["resources", "add", forAgents, "--name", "Tools", "--agents", "--scope", "tools:use"]),
      ).toMatchObject({ url: forAgents, clients: [], agents: true });
      const neither = await operator(["resources", "add", `${forAgents}x`, "--name", "Tools"]);
      expect(neither.code).toBe(2);
      expect(neither.stderr).toContain("--agents");
      expect((await json<{ url: string }>(["resources", "remove", url, "--yes"])).url).toBe(url);
      expect(await json<Array<{ url: string }>>(["resources", "list"])).not.toContainEqual(
        expect.objectContaining({ url }),
      );
    });
  });

  describe("keys", () => {
    const dir = mkdtempSync(join(tmpdir(), "admin-keys-"));

    it("publishes a fresh session key before it signs: second, then promoted first, then the old one retired", async () => {
      const file = join(dir, "session-keys");
      writeFileSync(file, TEST_SESSION_KEYS);
      const run = await operator(["keys", "rotate-session-key", "--from-file", file, "--project", "some-project"]);
      expect(run.code).toBe(0);
      expect(run.stderr).toContain("npx firebase functions:secrets:set SESSION_KEYS --project some-project");
      expect(run.stderr).toMatch(/5 minutes/);
      const published = parseKeyRing(run.stdout.trim());
      const fresh = [...published.verifying.keys()][1] as string;
      expect([published.signing.kid, ...published.verifying.keys()]).toEqual(["test-1", "test-1", fresh]);
      writeFileSync(file, `OTHER=1\nSESSION_KEYS='${run.stdout.trim()}'\n`);
      const out = join(dir, "promoted.json");
      const promoted = await json<{ out: string; value?: string }>([
        "keys",
        "promote-session-key",
        fresh,
        "--from-file",
        file,
        "--out",
        out,
      ]);
      expect(promoted).toMatchObject({ out });
      expect(promoted.value).toBeUndefined();
      const ring = parseKeyRing(readFileSync(out, "utf8").trim());
      expect([ring.signing.kid, ...ring.verifying.keys()]).toEqual([fresh, fresh, "test-1"]);
      expect(statSync(out).mode & 0o777).toBe(0o600);
      const retired = await json<{ value: string }>(["keys", "retire-session-key", "test-1", "--from-file", out]);
      expect([...parseKeyRing(retired.value).verifying.keys()]).toEqual([fresh]);
      const signing = await operator(["keys", "retire-session-key", fresh, "--from-file", out]);
      expect(signing.code).toBe(2);
      expect(signing.stderr).toMatch(/signing key/);
    });

    it("puts a fresh pepper key first and keeps the current ones, then retires an old one", async () => {
      const file = join(dir, "pepper");
      writeFileSync(file, TEST_CODE_PEPPER);
      const rotated = await json<{ value: string; kid: string; command: string; then: string }>([
        "keys",
        "rotate-code-pepper",
        "--from-file",
        file,
      ]);
      expect(parsePepper(rotated.value).map((k) => k.kid)).toEqual([rotated.kid, "test-pepper-1"]);
      expect(rotated.command).toContain("npx firebase functions:secrets:set CODE_PEPPER");
      expect(rotated.then).toMatch(/24 hours/);
      writeFileSync(file, rotated.value);
      const retired = await json<{ value: string }>([
        "keys",
        "retire-code-pepper",
        "test-pepper-1",
        "--from-file",
        file,
      ]);
      expect(parsePepper(retired.value).map((k) => k.kid)).toEqual([rotated.kid]);
    });

    it("needs the current value from a file when it runs against a real project", async () => {
      const run = await operator(["keys", "rotate-session-key", "--project", "some-project"]);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/--from-file/);
    });
  });

  describe("doctor", () => {
    const smtp = { SMTP_HOST: "127.0.0.1", SMTP_PORT: process.env.STACK_SMTP_PORT ?? "1025" };
    const secrets = { SESSION_KEYS: TEST_SESSION_KEYS, CODE_PEPPER: TEST_CODE_PEPPER };

    it("passes when the settings are there and mail, the provider and Firestore answer; never prints a value", async () => {
      const run = await operator(["doctor", "--json"], { ...smtp, ...secrets });
      expect(run.code).toBe(0);
      const report = JSON.parse(run.stdout) as {
        ok: boolean;
        checks: Array<{ name: string; ok: boolean; detail: string }>;
        allowedOrigins: string[];
        hosting: Array<{ site: string }>;
      };
      expect(report.ok).toBe(true);
      expect(report.checks).toContainEqual(
        expect.objectContaining({ name: "SESSION_KEYS", ok: true, detail: "read: 1 key(s), signing with test-1" }),
      );
      expect(report.checks.map((c) => c.name)).toEqual(
        expect.arrayContaining(["firestore", "identity provider", "mail (SMTP)", "PARENT_DOMAIN", "ID_URL"]),
      );
      expect(report.checks).toContainEqual(
        expect.objectContaining({ name: "outbox", detail: expect.stringMatching(/^\d+ waiting to be sent; /) }),
      );
      expect(report.allowedOrigins.length).toBeGreaterThan(0);
      expect(report.hosting.map((h) => h.site)).toContain("service");
      expect(run.stdout).not.toContain("test-pepper-secret");
      expect(run.stdout).not.toContain(JSON.parse(TEST_SESSION_KEYS)[0].d as string);
    });

    it("reports who may register clients, and how many wait for a review, without failing for it", async () => {
      // The test stack lets clients register themselves: closed is asked for here, as a deployment's default.
      const closed = JSON.parse(
        (await operator(["doctor", "--json"], { ...smtp, ...secrets, OIDC_REGISTRATION: "closed" })).stdout,
      ) as {
        checks: Array<{ name: string; ok: boolean; detail: string }>;
      };
      expect(closed.checks).toContainEqual(
        expect.objectContaining({
          name: "client registration",
          ok: true,
          detail: "closed: only the operator registers clients",
        }),
      );
      const run = await operator(["doctor", "--json"], { ...smtp, ...secrets, OIDC_REGISTRATION: "reviewed" });
      const reviewed = JSON.parse(run.stdout) as typeof closed;
      expect(reviewed.checks).toContainEqual(
        expect.objectContaining({
          name: "client registration",
          ok: true,
          detail: expect.stringMatching(/^reviewed: .*\d+ registered themselves, \d+ waiting for review, \d+ blocked$/),
        }),
      );
    });

    it("warns of a client whose back-channel logout address keeps failing, and not of one that takes its tokens", async () => {
      const failing = unique("bc-failing");
      const fine = unique("bc-fine");
      for (const id of [failing, fine]) {
        await json(["clients", "register", id, "--name", "Logout", "--redirect-uri", "https://a.test/cb"]);
        await json(["clients", "set-backchannel", id, `https://${id}.example.test/logout`]);
      }
      const at = new Date(systemClock.now().getTime() - 3_600_000);
      const entry = (clientId: string, state: "failed" | "sent") =>
        queuedEntry(firestore(), { kind: "backchannel-logout", about: clientId, state, at });
      await entry(failing, "failed");
      await entry(fine, "sent");
      const run = JSON.parse((await operator(["doctor", "--json"], { ...smtp, ...secrets })).stdout) as {
        checks: Array<{ name: string; ok: boolean; detail: string; required: boolean }>;
      };
      expect(run.checks.find((c) => c.name === `logout to ${failing}`)).toMatchObject({
        ok: false,
        required: false,
        detail: expect.stringMatching(/^1 logout tokens given up in the last day \(last failure: timeout\)/),
      });
      expect(run.checks.find((c) => c.name === `logout to ${fine}`)).toMatchObject({ ok: true });
    });

    it("exits 1 naming what is missing or unreachable", async () => {
      const noMail = await operator(["doctor"], { ...secrets, SMTP_HOST: "" });
      expect(noMail.code).toBe(1);
      expect(noMail.stdout).toMatch(/FAIL\s+mail \(SMTP\): SMTP_HOST is not set/);
      const unreachable = await operator(["doctor"], { ...secrets, SMTP_HOST: "127.0.0.1", SMTP_PORT: "9" });
      expect(unreachable.code).toBe(1);
      expect(unreachable.stdout).toMatch(/FAIL\s+mail \(SMTP\)/);
    });
  });
});
