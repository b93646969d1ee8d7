/**
 * Proves: guessing at recovery codes tells a stranger nothing of who holds them. The sign-in by
 * recovery code is public and answers an address on nobody, and a person with no codes, as a
 * wrong code; but a guess counts towards the address's failure ceiling only where the person
 * holds unused codes, so after a hundred wrong guesses an address with codes answers "locked" and
 * one without still answers "wrong code". Recovery codes are made by people with passkeys, and
 * the passkey rule asks them of administrators: the difference names the administrators.
 */
import request from "supertest";
import { FAILURE_CEILING } from "../../src/core/email-codes/rules";
import { accountWithPerson, sessionCookieFor } from "../support/people";
import { testConfig, testDeps } from "../support/deps";
import { passkeyWorld } from "../support/passkeys";
import { allTasksIdle } from "../support/task-queue";

jest.setTimeout(180_000);

const deps = testDeps({ config: testConfig({ passkeyRoles: ["admin"] }) });
const keys = passkeyWorld(deps);

afterEach(() => allTasksIdle());

const guess = (email: string, code: string) =>
  request(keys.app).post("/auth/passkeys/recovery/sign-in").send({ email, code });

/** A wrong code of the right shape, a different one each time. */
const wrong = (i: number) => `zzzzz-${String(i).padStart(5, "0")}`;

describe("a stranger guessing at recovery codes", () => {
  it("hears the same of an administrator with codes as of a member without, after a hundred guesses", async () => {
    const admin = await keys.withPasskey({ role: "admin", projects: ["*"] });
    const keyed = await sessionCookieFor(deps, admin.account.uid, admin.person.id, ["hwk", "user"]);
    expect((await request(keys.app).post("/auth/passkeys/recovery-codes").set("Cookie", keyed).send({})).status).toBe(
      201,
    );
    const { account: member } = await accountWithPerson({ projects: ["status"] }, deps.store);

    for (let i = 0; i < FAILURE_CEILING; i++) {
      await guess(admin.account.email, wrong(i));
      await guess(member.email, wrong(i));
    }
    const atAdmin = await guess(admin.account.email, wrong(FAILURE_CEILING));
    const atMember = await guess(member.email, wrong(FAILURE_CEILING));
    expect([atAdmin.status, atAdmin.body]).toEqual([atMember.status, atMember.body]);
  });
});
