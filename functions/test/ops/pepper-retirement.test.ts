/**
 * Retiring a CODE_PEPPER key with the operator CLI while something is sealed under it
 * (docs/operating.md, "Rotating CODE_PEPPER"): `keys retire-code-pepper` refuses while apps'
 * signing secrets are, until `hooks reseal` has sealed them under the new first key (the secrets
 * are the same after, and open without the old key), and while a mail waits to be sent. On a
 * project of its own, so no other subscription or mail is in the way.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { addHook, findHook, signingSecrets } from "../../src/core/events/hooks";
import { enqueueMail } from "../../src/core/outbox/enqueue";
import { wakeDrainer } from "../../src/core/outbox/wake";
import { parsePepper } from "../../src/core/pepper";
import type { Hook } from "../../src/core/model/hook";
import { TEST_CODE_PEPPER, testDeps, unique } from "../support/deps";
import { operator, freshProject, STACK_TRACE } from "../support/operator-cli";
import { allTasksIdle } from "../support/task-queue";

jest.setTimeout(120_000);

const FRESH = "pepper-next:a-fresh-pepper-secret-of-this-file-0123456789";
const ROTATED = `${FRESH},${TEST_CODE_PEPPER}`;

describe("retiring a pepper key that apps' signing secrets are sealed under", () => {
  afterEach(() => allTasksIdle());

  it("is refused, naming the apps, until `hooks reseal`, and while a mail waits; the secrets open under the new key alone", async () => {
    const { env, db } = freshProject();
    const deps = testDeps({ store: db });
    const dir = mkdtempSync(join(tmpdir(), "pepper-retirement-"));
    const file = join(dir, "pepper");
    writeFileSync(file, ROTATED, { mode: 0o600 });
    const calendar = await addHook(deps, { app: "calendar", url: "https://calendar.example/hooks", events: [] });
    const portal = await addHook(deps, { app: "portal", url: "https://portal.example/hooks", events: [] });
    // A mail waiting to be sent: sealed under the ring's first key, as every outbox message is.
    const to = `${unique("waiting")}@example.com`;
    const mail = { to, subject: "Waiting", text: "A mail that waits.", html: "<p>A mail that waits.</p>" };
    const deliverBy = new Date(deps.clock.now().getTime() + 60 * 60_000);
    // Queued where no drain is woken: it waits until this test wakes one.
    const queuing = testDeps({ store: db, clock: deps.clock, mailQueue: { wake: async () => {} } });
    await queuing.transaction(async (tx) => enqueueMail(queuing, tx, mail, { kind: "digest", deliverBy }));
    const retire = ["keys", "retire-code-pepper", "test-pepper-1", "--from-file", file, "--json"];

    const refused = await operator(retire, env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("calendar, portal");
    expect(refused.stderr).toContain("hooks reseal");
    expect(refused.stderr).not.toMatch(STACK_TRACE);
    expect(refused.stdout).toBe("");

    // A ring without the key they are sealed under (the new key alone, say) opens none: refused,
    // and nothing changed.
    const newOnly = join(dir, "new-only");
    writeFileSync(newOnly, FRESH, { mode: 0o600 });
    const wrong = await operator(["hooks", "reseal", "--from-file", newOnly, "--json"], env);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain(
      "the secrets of calendar, portal are sealed under a key this CODE_PEPPER does not hold",
    );
    expect(((await findHook(deps, "calendar")) as Hook).secrets.map((s) => s.sealed.kid)).toEqual(["test-pepper-1"]);

    const resealed = await operator(["hooks", "reseal", "--from-file", file, "--json"], env);
    expect(resealed).toMatchObject({ code: 0 });
    expect(JSON.parse(resealed.stdout)).toEqual({ resealed: 2 });
    const newKeyOnly = testDeps({ store: db, pepper: parsePepper(FRESH) });
    for (const [app, secret] of [
      ["calendar", calendar.secret],
      ["portal", portal.secret],
    ] as const) {
      const hook = (await findHook(deps, app)) as Hook;
      expect(hook.secrets.map((s) => s.sealed.kid)).toEqual(["pepper-next"]);
      expect(signingSecrets(newKeyOnly, hook, deps.clock.now())).toEqual([secret]);
    }

    const again = await operator(["hooks", "reseal", "--from-file", file, "--json"], env);
    expect(JSON.parse(again.stdout)).toEqual({ resealed: 0 });
    const waiting = await operator(retire, env);
    expect(waiting.code).toBe(1);
    expect(waiting.stderr).toContain("1 mail(s) or deliveries waiting in the outbox are sealed under test-pepper-1");

    // Sent (to the dev inbox), it waits no more.
    await wakeDrainer(deps);
    await deps.tasks?.idle();
    expect((await db.collection("outbox").where("kind", "==", "digest").get()).docs.map((d) => d.get("state"))).toEqual(
      ["sent"],
    );
    const retired = await operator(retire, env);
    expect(retired).toMatchObject({ code: 0 });
    expect(parsePepper((JSON.parse(retired.stdout) as { value: string }).value).map((k) => k.kid)).toEqual([
      "pepper-next",
    ]);
  });
});
