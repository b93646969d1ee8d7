/**
 * A refused administrators' request is written to the audit trail before it is answered, but never
 * waits on it: with Firestore not answering (every write hangs) and the person known to the
 * instance (no read needed), a member asking for the people list is still answered 403, within the
 * request's deadline, not the deadline's 503 that tells them to try again; and the refusal's line
 * is in the log all the same.
 */
import request from "supertest";
import * as peopleRoutes from "../../src/routes/people/people";
import { appFor, testDeps } from "../support/deps";
import { recordingLogger } from "../support/email-codes";
import { cachedMember } from "../support/people";
import type { Firestore } from "../../src/store/db";

/** A Firestore whose every read and write never finishes, recording what was asked of it. */
function hangingStore(asked: string[]): Firestore {
  const never = () => new Promise<never>(() => undefined);
  const doc = (path: string): unknown => ({
    set: () => (asked.push(`set ${path}`), never()),
    create: () => (asked.push(`create ${path}`), never()),
    get: () => (asked.push(`get ${path}`), never()),
    update: () => (asked.push(`update ${path}`), never()),
    collection: (c: string) => col(`${path}/${c}`),
  });
  const col = (name: string): unknown => ({
    doc: (id: string) => doc(`${name}/${id}`),
    where: () => col(name),
    orderBy: () => col(name),
    limit: () => col(name),
    get: () => (asked.push(`query ${name}`), never()),
  });
  return { collection: (c: string) => col(c), runTransaction: never } as unknown as Firestore;
}

describe("a refused administrators' request while Firestore does not answer", () => {
  it("is answered 403, and its refusal logged", async () => {
    const asked: string[] = [];
    const log = recordingLogger();
    const deps = testDeps({ store: hangingStore(asked), identity: {} as never, log });
    const { cookie } = await cachedMember(deps, "member");
    const app = appFor(peopleRoutes, deps, { deadlineMs: 1500 });

    const res = await request(app).get("/auth/people").set("Cookie", cookie);
    expect(res.status).toBe(403);
    expect(asked.some((a) => a.startsWith("set auditTrail/"))).toBe(true);
    const lines = log.lines.map((l) => JSON.parse(l) as { message: string; outcome?: string });
    expect(lines).toContainEqual(expect.objectContaining({ message: "audit", outcome: "refused" }));
    expect(lines).toContainEqual(expect.objectContaining({ message: "audit refusal not recorded" }));
  });
});
