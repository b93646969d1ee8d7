/**
 * Retiring a CODE_PEPPER key that people's recovery codes are keyed with: a code cannot be hashed
 * again without the code, so once the key left the ring they would stop signing anyone in, unseen.
 * `keys retire-code-pepper` refuses while any are, naming how many people and the way out; once
 * the person makes new codes (under the new first key), it goes ahead. On a project of its own.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeRecoveryCodes } from "../../src/core/passkeys/recovery-codes";
import { parsePepper } from "../../src/core/pepper";
import { TEST_CODE_PEPPER, testDeps, unique } from "../support/deps";
import { operator, freshProject, STACK_TRACE } from "../support/operator-cli";
import { personFor } from "../support/people";
import { allTasksIdle } from "../support/task-queue";

jest.setTimeout(120_000);

const FRESH = "pepper-next:a-fresh-pepper-secret-of-this-file-0123456789";
const ROTATED = `${FRESH},${TEST_CODE_PEPPER}`;

describe("retiring a pepper key recovery codes are keyed with", () => {
  afterEach(() => allTasksIdle());

  it("is refused, naming how many people's codes, until they make new ones under the new key", async () => {
    const { env, db } = freshProject();
    const dir = mkdtempSync(join(tmpdir(), "pepper-recovery-"));
    const file = join(dir, "pepper");
    writeFileSync(file, ROTATED, { mode: 0o600 });
    const person = await personFor({ uid: unique("uid"), email: `${unique("a")}@example.test` }, { role: "admin" }, db);
    const maker = (pepper: string) => ({
      deps: testDeps({ store: db, pepper: parsePepper(pepper) }),
      who: { person, sessionKey: unique("s"), amr: ["hwk", "user"], from: "Firefox on Linux" },
    });
    const before = maker(TEST_CODE_PEPPER);
    await makeRecoveryCodes(before.deps, { ...before.who, signedInAt: before.deps.clock.now() });
    const retire = ["keys", "retire-code-pepper", "test-pepper-1", "--from-file", file, "--json"];

    const refused = await operator(retire, env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("the recovery codes of 1 person(s) are keyed with test-pepper-1");
    expect(refused.stderr).toContain("passkey-rule clear");
    expect(refused.stderr).not.toMatch(STACK_TRACE);
    expect(refused.stdout).toBe("");

    // New codes, made once the new key is first: keyed with it, and the old key may go.
    const after = maker(ROTATED);
    await makeRecoveryCodes(after.deps, { ...after.who, signedInAt: after.deps.clock.now() });
    expect((await db.collection("recoveryCodes").doc(person.id).get()).get("kid")).toBe("pepper-next");
    const retired = await operator(retire, env);
    expect(retired).toMatchObject({ code: 0 });
  });
});
