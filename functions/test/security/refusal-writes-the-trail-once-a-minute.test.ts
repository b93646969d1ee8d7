/**
 * "At most one record per person, route and minute (the last), however often they ask"
 * (docs/operating.md, The audit trail) holds for what a member can make the service do, not only
 * for what is left in the collection: a member asking an administrators' route again and again
 * within one minute costs one write to the trail and one `audit` line for the sink, not one of
 * each per request (every write billed, on one hot document; every line carried out to the sink,
 * which keeps them all). And the route is the route, whatever the method: a GET route asked with
 * HEAD (which express answers through the same handler) is the same route.
 */
import request from "supertest";
import * as peopleRoutes from "../../src/routes/people/people";
import { appFor, testDeps } from "../support/deps";
import { recordingLogger } from "../support/email-codes";
import { cachedMember } from "../support/people";
import type { Firestore } from "../../src/store/db";

/** A Firestore whose writes answer at once and whose reads never do, recording every write. */
function countingStore(written: string[]): Firestore {
  const never = () => new Promise<never>(() => undefined);
  const doc = (path: string): unknown => ({
    set: () => (written.push(path), Promise.resolve()),
    create: () => (written.push(path), Promise.resolve()),
    update: () => (written.push(path), Promise.resolve()),
    get: never,
    collection: (c: string) => col(`${path}/${c}`),
  });
  const col = (name: string): unknown => ({
    doc: (id: string) => doc(`${name}/${id}`),
    where: () => col(name),
    orderBy: () => col(name),
    limit: () => col(name),
    get: never,
  });
  return { collection: (c: string) => col(c), runTransaction: never } as unknown as Firestore;
}

async function member(written: string[], log = recordingLogger()) {
  const deps = testDeps({ store: countingStore(written), identity: {} as never, log });
  const { cookie } = await cachedMember(deps, "member-amplify");
  return { app: appFor(peopleRoutes, deps), cookie, log };
}

const trailWrites = (written: string[]) => written.filter((p) => p.startsWith("auditTrail/"));

describe("a member refused the same administrators' route 20 times in one minute", () => {
  it("costs the trail one write, not one per request", async () => {
    const written: string[] = [];
    const { app, cookie } = await member(written);
    for (let i = 0; i < 20; i++) {
      const res = await request(app).get("/auth/people").set("Cookie", cookie);
      expect(res.status).toBe(403);
    }
    expect(new Set(trailWrites(written)).size).toBe(1);
    expect(trailWrites(written)).toHaveLength(1);
  });

  it("sends the sink one audit line, not one per request", async () => {
    const written: string[] = [];
    const { app, cookie, log } = await member(written);
    for (let i = 0; i < 20; i++) await request(app).get("/auth/people").set("Cookie", cookie);
    const lines = log.lines.map((l) => JSON.parse(l) as { message: string }).filter((l) => l.message === "audit");
    expect(lines).toHaveLength(1);
  });
});

describe("a member refused a GET route, asked as GET and as HEAD in one minute", () => {
  it("is one record of that route", async () => {
    const written: string[] = [];
    const { app, cookie } = await member(written);
    expect((await request(app).get("/auth/people").set("Cookie", cookie)).status).toBe(403);
    expect((await request(app).head("/auth/people").set("Cookie", cookie)).status).toBe(403);
    expect(new Set(trailWrites(written)).size).toBe(1);
  });
});
