import { currentTrace, inTrace, isTraceId, newTraceId, requestTrace, tracedBy } from "./trace";
import { line } from "./logger";

const ID = "4bf92f3577b34da6a3ce929d0e0e4736";

describe("tracedBy: the trace a request's front names, for grouping only", () => {
  it("takes Cloud Run's X-Cloud-Trace-Context first, then a W3C traceparent", () => {
    expect(tracedBy({ "x-cloud-trace-context": `${ID}/1;o=1` })).toBe(ID);
    expect(tracedBy({ "x-cloud-trace-context": `${ID.toUpperCase()}/1` })).toBe(ID);
    expect(tracedBy({ traceparent: `00-${ID}-00f067aa0ba902b7-01` })).toBe(ID);
    const other = "0af7651916cd43dd8448eb211c80319c";
    expect(tracedBy({ "x-cloud-trace-context": `${ID}/1`, traceparent: `00-${other}-00f067aa0ba902b7-01` })).toBe(ID);
  });

  it("names none for anything malformed, all zeros, or shaped to break a log line", () => {
    for (const headers of [
      {},
      { "x-cloud-trace-context": "abc/1" },
      { "x-cloud-trace-context": `${"0".repeat(32)}/1` },
      { traceparent: `00-${"0".repeat(32)}-00f067aa0ba902b7-01` },
      { traceparent: `00-${ID}-00f067aa0ba902b7` },
      { traceparent: `00-${ID.toUpperCase()}-00f067aa0ba902b7-01` },
      { traceparent: `00-${ID}"\n-00f067aa0ba902b7-01` },
      { "x-cloud-trace-context": [`${ID}/1`] },
    ])
      expect([headers, tracedBy(headers)]).toEqual([headers, null]);
  });

  it("gives each request an id of the service's own, never the one a client sent", () => {
    const a = requestTrace({ traceparent: `00-${ID}-00f067aa0ba902b7-01` });
    expect(a.front).toBe(ID);
    expect(isTraceId(a.id)).toBe(true);
    expect(a.id).not.toBe(ID);
    expect(requestTrace({}).id).not.toBe(a.id);
    expect(isTraceId(newTraceId())).toBe(true);
  });

  it("never gives two the same id, across refills of its pool", () => {
    const ids = Array.from({ length: 1000 }, () => newTraceId());
    expect(ids.every(isTraceId)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe("inTrace: the trace work belongs to", () => {
  it("holds across awaits, and not outside its work", async () => {
    expect(currentTrace()).toBeNull();
    const seen = await inTrace(ID, async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return currentTrace();
    });
    expect(seen).toBe(ID);
    expect(currentTrace()).toBeNull();
    expect(inTrace(ID, () => inTrace(null, currentTrace))).toBeNull();
  });

  it("puts its id on every log line, and the front's as Cloud Logging's trace field where the project is known", () => {
    const saved = {
      GCLOUD_PROJECT: process.env.GCLOUD_PROJECT,
      GOOGLE_CLOUD_PROJECT: process.env.GOOGLE_CLOUD_PROJECT,
    };
    const parsed = (text: string) => JSON.parse(text) as Record<string, unknown>;
    const FRONT = "0af7651916cd43dd8448eb211c80319c";
    try {
      delete process.env.GCLOUD_PROJECT;
      delete process.env.GOOGLE_CLOUD_PROJECT;
      expect(parsed(line("INFO", "hello"))).toEqual({ severity: "INFO", message: "hello" });
      const traced = { id: ID, front: FRONT };
      expect(parsed(inTrace(traced, () => line("INFO", "hello")))).toEqual({
        severity: "INFO",
        message: "hello",
        traceId: ID,
      });
      process.env.GCLOUD_PROJECT = "identity-prod";
      expect(
        parsed(inTrace(traced, () => line("ERROR", "mail given up", { kind: "code", traceId: "forged" }))),
      ).toEqual({
        severity: "ERROR",
        message: "mail given up",
        kind: "code",
        traceId: ID,
        "logging.googleapis.com/trace": `projects/identity-prod/traces/${FRONT}`,
      });
      // Work resumed from a stored id (an outbox entry) has no front of its own.
      expect(parsed(inTrace(ID, () => line("INFO", "mail sent")))).toEqual({
        severity: "INFO",
        message: "mail sent",
        traceId: ID,
      });
    } finally {
      for (const [name, value] of Object.entries(saved))
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
    }
  });
});
