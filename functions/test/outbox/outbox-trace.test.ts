/**
 * One trace from a request to the mail it caused (trace.ts): a request answers with a trace id of
 * the service's own, never the one a client sent, the outbox entry it queued keeps it, and the
 * drain's lines about that entry, its "mail sent" among them, are written under it again. Real
 * SMTP to the stack's dev inbox; the drain is run by hand on this file's own entry.
 */
import request from "supertest";
import { deliver } from "../../src/core/outbox/drain";
import { enqueueMail } from "../../src/core/outbox/enqueue";
import { handlers } from "../../src/tasks/mail";
import { MINUTE } from "../../src/clock";
import { currentTrace, inTrace, newTraceId } from "../../src/trace";
import type { Logger } from "../../src/logger";
import * as otp from "../../src/routes/otp/otp";
import * as outbox from "../../src/store/outbox";
import { appFor, firestore, testDeps, unique } from "../support/deps";
import { waitForMail } from "../support/inbox";

const db = firestore();
const ID = "4bf92f3577b34da6a3ce929d0e0e4736";

/** A logger that keeps each line's message with the trace it was written under. */
function tracingLogger(): Logger & { lines: Array<{ message: string; trace: string | null }> } {
  const lines: Array<{ message: string; trace: string | null }> = [];
  const keep = (message: string) => void lines.push({ message, trace: currentTrace() });
  return { lines, info: keep, warn: keep, error: keep };
}

describe("a trace from the request to its mail", () => {
  it("answers each request with a trace id of its own, whatever trace the client names", async () => {
    const app = appFor(otp, testDeps({ mailQueue: { wake: async () => {} } }));
    const ask = () => request(app).get("/auth/otp/nothing-here").set("traceparent", `00-${ID}-00f067aa0ba902b7-01`);
    const [first, second] = [await ask(), await ask()];
    for (const answer of [first, second]) expect(answer.headers["x-trace-id"]).toMatch(/^[0-9a-f]{32}$/);
    expect([first.headers["x-trace-id"], second.headers["x-trace-id"]]).not.toContain(ID);
    expect(first.headers["x-trace-id"]).not.toBe(second.headers["x-trace-id"]);
  });

  it("keeps the request's trace id on the outbox entry it queued", async () => {
    const deps = testDeps({ mailQueue: { wake: async () => {} } });
    const app = appFor(otp, deps);
    const email = `${unique("traced")}@example.test`;
    const front = newTraceId();
    const sent = await request(app)
      .post("/auth/otp/send")
      .set("X-Cloud-Trace-Context", `${front}/7;o=1`)
      .send({ email });
    expect(sent.status).toBe(200);
    const traceId = sent.headers["x-trace-id"] as string;
    expect(traceId).not.toBe(front);
    const entries = (await db.collection("outbox").where("trace", "==", traceId).get()).docs;
    expect(entries.map((d) => d.get("kind"))).toEqual(["code"]);
  });

  it("writes the drain's lines about an entry, and its mail's, under the entry's trace", async () => {
    const log = tracingLogger();
    const deps = testDeps({ log, mailQueue: { wake: async () => {} } });
    const to = `${unique("drained")}@example.test`;
    const deliverBy = new Date(deps.clock.now().getTime() + 10 * MINUTE);
    const message = { to, subject: "Traced", text: "traced", html: "<p>traced</p>" };
    const id = await inTrace(ID, () =>
      deps.transaction(async (tx) => enqueueMail(deps, tx, message, { kind: "lock-notice", deliverBy })),
    );
    expect((await outbox.findById(db, id))?.trace).toBe(ID);
    // The drain runs elsewhere, in no trace of its own request's: the entry's is taken up again.
    expect(currentTrace()).toBeNull();
    expect(await deliver(deps, id, deps.clock.now(), handlers)).toBe("sent");
    await waitForMail(to);
    expect(log.lines).toContainEqual({ message: "mail sent", trace: ID });
    expect(log.lines.every((l) => l.trace === ID)).toBe(true);
  });
});
