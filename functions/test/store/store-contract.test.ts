/**
 * What our code relies on from Firestore, checked against the emulator the stack runs
 * (FIRESTORE_EMULATOR_HOST) and, where that is Google's, against a stand-in of this file's own
 * too (tools/firestore-stand-in), so that one run proves both. The stand-in leans on internals of
 * @firestore-emulator/server, so these tests are its alarm.
 */
import type { ChildProcess } from "node:child_process";
import { initializeApp } from "firebase-admin/app";
import {
  AggregateField,
  FieldValue,
  Filter,
  type Firestore,
  type QuerySnapshot,
  Timestamp,
  getFirestore,
} from "firebase-admin/firestore";
import { systemClock } from "../../src/clock";
import { cryptoRandom } from "../../src/random";
import { firestoreAt, freePort, startStandIn, stopped } from "../support/own-firestore";

const project = process.env.GCLOUD_PROJECT ?? "";
const runId = cryptoRandom.token(6);

let db: Firestore;

const collection = (name: string) => db.collection(`contract-${runId}-${name}`);
const range = (n: number) => Array.from({ length: n }, (_, i) => i);
// The official emulator resolves contention by aborting; let the SDK retry past its default 5.
const contended = { maxAttempts: 50 };

/** Google's emulator runs the stack where tools/stack.ts says how it launched it. */
const emulators = [
  ["the stack's emulator", false],
  ...(process.env.FIRESTORE_LAUNCH ? [["a stand-in of its own", true] as const] : []),
] as const;

describe.each(emulators)("store contract, on %s", (_, ownStandIn) => {
  let standIn: ChildProcess | null = null;
  // Each run writes under its own collection prefix, so nothing here needs a reset (which would
  // also wipe the seed data other test files use).
  beforeAll(async () => {
    if (!ownStandIn) {
      db = getFirestore(initializeApp({ projectId: project }, `contract-${runId}`));
      return;
    }
    const port = await freePort();
    standIn = await startStandIn(port);
    db = firestoreAt(`127.0.0.1:${port}`);
  });
  afterAll(async () => {
    if (standIn === null) return;
    await db.terminate();
    await stopped(standIn);
  });

  it("20 concurrent read-increment-write transactions end at exactly 20", async () => {
    const counter = collection("counters").doc("c");
    await counter.set({ n: 0 });
    await Promise.all(
      range(20).map(() =>
        db.runTransaction(async (tx) => {
          const snapshot = await tx.get(counter);
          tx.update(counter, { n: (snapshot.get("n") as number) + 1 });
        }, contended),
      ),
    );
    expect((await counter.get()).get("n")).toBe(20);
  });

  it("20 concurrent consumers of one single-use document yield exactly one winner", async () => {
    const code = collection("codes").doc("once");
    await code.set({ consumed: false, uses: 0 });
    const won = await Promise.all(
      range(20).map((i) =>
        db.runTransaction(async (tx) => {
          const snapshot = await tx.get(code);
          if (snapshot.get("consumed") === true) return false;
          tx.update(code, { consumed: true, by: i, uses: FieldValue.increment(1) });
          return true;
        }, contended),
      ),
    );
    const stored = (await code.get()).data();
    expect(won.filter(Boolean)).toHaveLength(1);
    expect(stored).toEqual({ consumed: true, uses: 1, by: won.indexOf(true) });
  });

  it("getAll in a transaction answers in the order asked, missing documents as missing, and its writes land in one commit", async () => {
    const codes = collection("batched");
    await Promise.all(["a", "c", "e"].map((id) => codes.doc(id).set({ used: false })));
    const ids = ["e", "b", "a", "d", "c"];
    const seen = await db.runTransaction(async (tx) => {
      const snaps = await tx.getAll(...ids.map((id) => codes.doc(id)));
      for (const snap of snaps) if (snap.exists) tx.update(snap.ref, { used: true });
      return snaps.map((snap) => `${snap.id}:${snap.exists}`);
    });
    expect(seen).toEqual(["e:true", "b:false", "a:true", "d:false", "c:true"]);
    const stored = await codes.get();
    expect(stored.docs.map((d) => `${d.id}:${d.get("used")}`).sort()).toEqual(["a:true", "c:true", "e:true"]);
  });

  it("one getAll reads documents of several collections, each in the order asked", async () => {
    const codes = collection("together-codes");
    const limits = collection("together-limits");
    await Promise.all([codes.doc("a").set({ n: 1 }), limits.doc("a").set({ n: 2 }), limits.doc("z").set({ n: 3 })]);
    const seen = await db.runTransaction(async (tx) => {
      const snaps = await tx.getAll(codes.doc("b"), codes.doc("a"), limits.doc("z"), limits.doc("a"), limits.doc("b"));
      return snaps.map((snap) => `${snap.ref.parent.id}/${snap.id}:${snap.get("n") ?? "-"}`);
    });
    expect(seen).toEqual([
      `${codes.id}/b:-`,
      `${codes.id}/a:1`,
      `${limits.id}/z:3`,
      `${limits.id}/a:2`,
      `${limits.id}/b:-`,
    ]);
  });

  it("20 concurrent batch transactions over overlapping documents use each document once", async () => {
    const codes = collection("overlap");
    await Promise.all(range(10).map((i) => codes.doc(`c${i}`).set({ usedBy: null })));
    // Transaction t reads codes t % 10 and (t + 3) % 10, and takes those still free.
    const taken = await Promise.all(
      range(20).map((t) =>
        db.runTransaction(async (tx) => {
          const refs = [codes.doc(`c${t % 10}`), codes.doc(`c${(t + 3) % 10}`)];
          const snaps = await tx.getAll(...refs);
          const free = snaps.filter((snap) => snap.get("usedBy") === null);
          for (const snap of free) tx.update(snap.ref, { usedBy: t });
          return free.map((snap) => snap.id);
        }, contended),
      ),
    );
    const all = taken.flat();
    expect(all).toHaveLength(10);
    expect(new Set(all).size).toBe(10);
    for (const doc of (await codes.get()).docs) expect(taken[doc.get("usedBy") as number]).toContain(doc.id);
  });

  it("stamps creates made one after another in that order, and counts and sums over two ranges", async () => {
    const ledger = collection("ledger");
    for (let i = 0; i < 5; i++)
      await ledger
        .doc(`r${i}`)
        .create({ k: "a", at: Timestamp.fromMillis(1000 + i), seq: FieldValue.serverTimestamp(), used: i % 2 });
    const stamps = await Promise.all(
      range(5).map(async (i) => (await ledger.doc(`r${i}`).get()).get("seq") as Timestamp),
    );
    for (let i = 1; i < 5; i++) expect(stamps[i]!.toMillis()).toBeGreaterThanOrEqual(stamps[i - 1]!.toMillis());
    const within = await ledger
      .where("k", "==", "a")
      .where("at", ">", Timestamp.fromMillis(1000))
      .where("seq", "<=", stamps[4])
      .aggregate({ sent: AggregateField.count(), used: AggregateField.sum("used") })
      .get();
    // r1 to r4 (r0 is outside the window), of which r1 and r3 were used.
    expect(within.data()).toEqual({ sent: 4, used: 2 });
  });

  it("counts and sums each document once across an OR of keys, each in a window of its own", async () => {
    const ledger = collection("ledger-any");
    const rows = [
      { id: "a1", client: "c", network: "n", at: 1000, used: 0 }, // client, outside its window; network, inside
      { id: "a2", client: "c", network: "n", at: 5000, used: 1 }, // both: counted once
      { id: "a3", client: "x", network: "n", at: 500, used: 1 }, // network, outside its window
      { id: "a4", client: "c", network: "y", at: 4000, used: 0 }, // client, inside
      { id: "a5", client: "x", network: "y", at: 6000, used: 1 }, // neither
    ];
    await Promise.all(
      rows.map(({ id, at, ...row }) => ledger.doc(id).create({ ...row, at: Timestamp.fromMillis(at) })),
    );
    const window = (field: string, key: string, since: number) =>
      Filter.and(Filter.where(field, "==", key), Filter.where("at", ">", Timestamp.fromMillis(since)));
    const together = await ledger
      .where(Filter.or(window("client", "c", 2000), window("network", "n", 800)))
      .aggregate({ sent: AggregateField.count(), used: AggregateField.sum("used") })
      .get();
    // a1 (network), a2 (both, once) and a4 (client); of them a2 was used.
    expect(together.data()).toEqual({ sent: 3, used: 1 });
  });

  it("20 concurrent creates, once written, take 20 different places when ranked by their stamp and then their id", async () => {
    const ledger = collection("ranks");
    const ids = range(20).map((i) => `r${String(i).padStart(2, "0")}`);
    await Promise.all(ids.map((id) => ledger.doc(id).create({ k: "a", seq: FieldValue.serverTimestamp() })));
    const ranks = await Promise.all(
      ids.map(async (id) => {
        const seq = (await ledger.doc(id).get()).get("seq") as Timestamp;
        const earlier = (await ledger.where("k", "==", "a").where("seq", "<", seq).count().get()).data().count;
        const alike = (await ledger.where("k", "==", "a").where("seq", "==", seq).get()).docs.filter((d) => d.id < id);
        return earlier + alike.length;
      }),
    );
    expect([...ranks].sort((a, b) => a - b)).toEqual(range(20));
  });

  it("ids that name Object properties are ordinary documents", async () => {
    const odd = collection("odd-ids");
    const ids = ["constructor", "toString", "hasOwnProperty", "valueOf"];
    for (const id of ids) expect((await odd.doc(id).get()).exists).toBe(false);
    await Promise.all(ids.map((id) => odd.doc(id).create({ id })));
    for (const id of ids) expect((await odd.doc(id).get()).data()).toEqual({ id });
    expect((await odd.get()).size).toBe(ids.length);
  });

  it("a transaction that reads through a query is serialised too: 20 claimers take 20 distinct documents", async () => {
    const slots = collection("slots");
    await Promise.all(range(25).map((i) => slots.doc(`slot-${String(i).padStart(2, "0")}`).set({ claimed: false, i })));
    const claimed = await Promise.all(
      range(20).map(() =>
        db.runTransaction(async (tx) => {
          const free = await tx.get(slots.where("claimed", "==", false).limit(1));
          const slot = free.docs[0];
          if (!slot) return null;
          tx.update(slot.ref, { claimed: true });
          return slot.id;
        }, contended),
      ),
    );
    expect(new Set(claimed).size).toBe(20);
    expect(claimed).not.toContain(null);
    expect((await slots.where("claimed", "==", true).count().get()).data().count).toBe(20);
  });

  it("create() on an existing document fails with ALREADY_EXISTS and leaves it unchanged", async () => {
    const doc = collection("create").doc("taken");
    await doc.create({ v: 1 });
    await expect(doc.create({ v: 2 })).rejects.toMatchObject({ code: 6 });
    expect((await doc.get()).data()).toEqual({ v: 1 });
  });

  it("set() without merge replaces the whole document", async () => {
    const doc = collection("set").doc("replace");
    await doc.set({ a: 1, b: 1, nested: { x: 1, y: 1 } });
    await doc.set({ a: 2, nested: { x: 2 } });
    expect((await doc.get()).data()).toEqual({ a: 2, nested: { x: 2 } });
  });

  it("set() with merge keeps the fields it does not name", async () => {
    const doc = collection("set").doc("merge");
    await doc.set({ a: 1, b: 1, nested: { x: 1, y: 1 } });
    await doc.set({ a: 2, nested: { x: 2 } }, { merge: true });
    expect((await doc.get()).data()).toEqual({ a: 2, b: 1, nested: { x: 2, y: 1 } });
  });

  it("update() with FieldValue.delete() removes the field, top-level and nested", async () => {
    const doc = collection("update").doc("delete");
    await doc.set({ a: 1, b: 1, nested: { x: 1, y: 1 } });
    await doc.update({ a: FieldValue.delete(), "nested.y": FieldValue.delete() });
    expect((await doc.get()).data()).toEqual({ b: 1, nested: { x: 1 } });
  });

  it("update() of a missing document fails with NOT_FOUND and creates nothing", async () => {
    const doc = collection("update").doc("missing");
    await expect(doc.update({ a: 1 })).rejects.toMatchObject({ code: 5 });
    expect((await doc.get()).exists).toBe(false);
  });

  it("update() on a version read by a query applies once: 20 concurrent claimers of that version, one winner", async () => {
    // The outbox's claim (core/outbox/drain): no transaction, a write on the version the due query read.
    const doc = collection("version").doc("claimed");
    await doc.set({ claim: null });
    const [read] = (await collection("version").where("claim", "==", null).get()).docs;
    const version = read?.updateTime as Timestamp;
    const outcomes = await Promise.allSettled(
      range(20).map((i) => doc.update({ claim: `c${i}` }, { lastUpdateTime: version })),
    );
    const winners = range(20).filter((i) => outcomes[i]?.status === "fulfilled");
    expect(winners).toHaveLength(1);
    expect(outcomes.filter((o) => o.status === "rejected").map((o) => (o.reason as { code?: number }).code)).toEqual(
      range(19).map(() => 9),
    );
    const winner = winners[0] as number;
    const claimed = await doc.get();
    expect(claimed.get("claim")).toBe(`c${winner}`);
    // Each write moves the version on, even two in the same millisecond: the old one matches no more.
    const written = (outcomes[winner] as PromiseFulfilledResult<{ writeTime: Timestamp }>).value.writeTime;
    expect(claimed.updateTime?.isEqual(written)).toBe(true);
    await doc.update({ claim: "again" });
    await expect(doc.update({ claim: "stale" }, { lastUpdateTime: written })).rejects.toMatchObject({ code: 9 });
    expect((await doc.get()).get("claim")).toBe("again");
  });

  it("a transaction that throws after reading applies nothing", async () => {
    const doc = collection("rollback").doc("kept");
    const other = collection("rollback").doc("never");
    await doc.set({ n: 1 });
    const attempt = db.runTransaction(async (tx) => {
      await tx.get(doc);
      tx.update(doc, { n: 2 });
      tx.set(other, { written: true });
      throw new Error("changed my mind");
    });
    await expect(attempt).rejects.toThrow("changed my mind");
    expect((await doc.get()).data()).toEqual({ n: 1 });
    expect((await other.get()).exists).toBe(false);
  });

  // Each document once: Firestore refuses a batch that writes one document twice (INVALID_ARGUMENT).
  it("a batch whose create() fails applies none of its writes", async () => {
    const existing = collection("batch").doc("existing");
    const taken = collection("batch").doc("taken");
    const fresh = collection("batch").doc("fresh");
    await Promise.all([existing.set({ v: 1 }), taken.set({ v: 1 })]);
    const batch = db.batch();
    batch.set(fresh, { v: 1 });
    batch.update(existing, { v: 2 });
    batch.create(taken, { v: 3 });
    await expect(batch.commit()).rejects.toMatchObject({ code: 6 });
    expect((await fresh.get()).exists).toBe(false);
    expect((await existing.get()).data()).toEqual({ v: 1 });
    expect((await taken.get()).data()).toEqual({ v: 1 });
  });

  describe("queries we rely on", () => {
    const people = () => collection("people");
    const base = Date.UTC(2026, 0, 1);
    beforeAll(async () => {
      const rows = [
        { id: "ada", email: "ada@example.test", roles: ["admin", "member"], status: "approved" },
        { id: "bob", email: "bob@example.test", roles: ["member"], status: "pending" },
        { id: "cy", email: "cy@example.test", roles: [], status: "rejected" },
        { id: "di", email: "di@example.test", roles: ["member"], status: "approved" },
      ];
      await Promise.all(
        rows.map(({ id, ...row }, i) =>
          people()
            .doc(id)
            .set({ ...row, at: Timestamp.fromMillis(base + i * 1000) }),
        ),
      );
    });
    const ids = (snapshot: QuerySnapshot) => snapshot.docs.map((d) => d.id);

    it("equality on a top-level field finds exactly the matching document", async () => {
      expect(ids(await people().where("email", "==", "bob@example.test").get())).toEqual(["bob"]);
      expect(ids(await people().where("email", "==", "nobody@example.test").get())).toEqual([]);
    });

    it("array-contains finds the documents whose array holds the value", async () => {
      expect(ids(await people().where("roles", "array-contains", "admin").get())).toEqual(["ada"]);
    });

    it("array-contains-any finds the documents whose array holds any of the values", async () => {
      expect(ids(await people().where("roles", "array-contains-any", ["admin", "nobody"]).get())).toEqual(["ada"]);
      expect(ids(await people().where("roles", "array-contains-any", ["member", "admin"]).get()).sort()).toEqual([
        "ada",
        "bob",
        "di",
      ]);
    });

    it("array-contains-any with a string range and orderBy desc pages newest first", async () => {
      const query = people()
        .where("roles", "array-contains-any", ["member"])
        .where("email", "<", "di@example.test")
        .orderBy("email", "desc")
        .limit(1);
      expect(ids(await query.get())).toEqual(["bob"]);
    });

    it("in finds documents whose field is any of the values", async () => {
      expect(ids(await people().where("status", "in", ["pending", "rejected"]).get()).sort()).toEqual(["bob", "cy"]);
    });

    it("a timestamp range with orderBy desc and limit returns the newest first", async () => {
      const query = people()
        .where("at", ">=", Timestamp.fromMillis(base + 1000))
        .orderBy("at", "desc")
        .limit(2);
      expect(ids(await query.get())).toEqual(["di", "cy"]);
    });

    it("count() counts the documents a filter matches", async () => {
      expect((await people().where("status", "==", "approved").count().get()).data().count).toBe(2);
      expect((await people().count().get()).data().count).toBe(4);
    });
  });

  it("Timestamps round-trip with millisecond precision", async () => {
    const doc = collection("time").doc("t");
    const at = Timestamp.fromMillis(1_767_225_600_123);
    await doc.set({ at, date: new Date(1_767_225_600_456) });
    const stored = await doc.get();
    expect((stored.get("at") as Timestamp).toMillis()).toBe(1_767_225_600_123);
    expect((stored.get("date") as Timestamp).toMillis()).toBe(1_767_225_600_456);
  });

  it("FieldValue.increment on a top-level field adds, also on a missing field", async () => {
    const doc = collection("increment").doc("i");
    await doc.set({ n: 1 });
    await Promise.all(range(10).map(() => doc.update({ n: FieldValue.increment(2) })));
    await doc.set({ fresh: FieldValue.increment(5) }, { merge: true });
    expect((await doc.get()).data()).toEqual({ n: 21, fresh: 5 });
  });

  it("a transaction the client abandons does not block other transactions for more than 15 s", async () => {
    const held = collection("abandoned").doc("held");
    const other = collection("abandoned").doc("other");
    await held.set({ n: 0 });
    await other.set({ n: 0 });

    let readDone!: () => void;
    const hasRead = new Promise<void>((resolve) => (readDone = resolve));
    let giveUp!: (error: Error) => void;
    const forever = new Promise<never>((_, reject) => (giveUp = reject));
    const abandoned = db
      .runTransaction(
        async (tx) => {
          await tx.get(held);
          readDone();
          await forever;
        },
        { maxAttempts: 1 },
      )
      .catch(() => "gave up");
    await hasRead;

    const started = systemClock.now().getTime();
    await db.runTransaction(async (tx) => {
      const snapshot = await tx.get(other);
      tx.update(other, { n: (snapshot.get("n") as number) + 1 });
    });
    const waited = systemClock.now().getTime() - started;

    giveUp(new Error("abandoned"));
    await abandoned;
    expect(waited).toBeLessThan(15_000);
    expect((await other.get()).get("n")).toBe(1);
  }, 25_000);
});
