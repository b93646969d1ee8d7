/** The request rules every JSON endpoint shares (bodies, paths, failures, deadline), and the CORS rules. */
import { Router } from "express";
import request from "supertest";
import { z } from "zod";
import { createApp } from "../../src/http/app";
import { BODY_LIMIT_BYTES, parseBody } from "../../src/http/body";
import { jsonErrors } from "../../src/http/presenters";
import { silentLogger } from "../support/fakes";
import { APP_ORIGIN, testConfig } from "../support/deps";

/** The request rules every JSON endpoint shares, on a probe route built with the same createApp. */
function probeApp() {
  const router = Router();
  const schema = z.object({ name: z.string() });
  router.post("/auth/probe", async function probe(req, res) {
    const body = await parseBody(req, schema, "malformed_request");
    res.json({ hello: body.name });
  });
  router.get("/auth/boom", function boom() {
    throw new Error("database password is hunter2");
  });
  router.post("/auth/oidc/token", function token(_req, res) {
    res.json({ ok: true });
  });
  router.get("/auth/hang", async function hang() {
    await new Promise(() => {});
  });
  router.get("/auth/late", async function late(_req, res) {
    await new Promise((resolve) => setTimeout(resolve, 400));
    res.json({ late: true });
  });
  return createApp(router, {
    presenter: jsonErrors,
    allowedOrigins: testConfig().allowedOrigins,
    log: silentLogger,
    deadlineMs: 200,
  });
}

describe("request rules shared by every JSON endpoint", () => {
  const app = probeApp();

  it("parses a JSON object body", async () => {
    const res = await request(app).post("/auth/probe").send({ name: "ada" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ hello: "ada" });
  });

  it("answers 400 in the general shape for malformed JSON", async () => {
    const res = await request(app).post("/auth/probe").set("Content-Type", "application/json").send('{"name":');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "Malformed JSON body" });
  });

  it("answers 400 for a JSON value that is not an object", async () => {
    const res = await request(app).post("/auth/probe").set("Content-Type", "application/json").send("[1,2]");
    expect(res.status).toBe(400);
    expect(Object.keys(res.body)).toEqual(["error"]);
  });

  it("answers 400 for a field of the wrong type", async () => {
    const res = await request(app).post("/auth/probe").send({ name: 42 });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "Malformed request" });
  });

  it("answers 415 for a body that is not JSON", async () => {
    const res = await request(app).post("/auth/probe").set("Content-Type", "text/plain").send("name=ada");
    expect(res.status).toBe(415);
    expect(res.body).toEqual({ error: "Content-Type must be application/json" });
  });

  it.each([
    "application/vnd.evil+json",
    "application/json-patch+json",
    "text/json",
    "application/json; charset=latin1",
  ])("answers 415 for a body declared %s, which is not exactly application/json", async (type) => {
    const res = await request(app).post("/auth/probe").set("Content-Type", type).send('{"name":"ada"}');
    expect(res.status).toBe(415);
    expect(res.body).toEqual({ error: "Content-Type must be application/json" });
  });

  it.each(["application/json", "application/json; charset=utf-8", "Application/JSON;charset=UTF-8"])(
    "parses a body declared %s",
    async (type) => {
      const res = await request(app).post("/auth/probe").set("Content-Type", type).send('{"name":"ada"}');
      expect(res.status).toBe(200);
    },
  );

  it("answers 413 for a body over the limit, declared or streamed", async () => {
    const big = JSON.stringify({ name: "x".repeat(BODY_LIMIT_BYTES) });
    const declared = await request(app).post("/auth/probe").set("Content-Type", "application/json").send(big);
    expect(declared.status).toBe(413);
    expect(declared.body).toEqual({ error: "Request body too large" });
  });

  it("answers 404 in the general shape for an unknown path", async () => {
    const res = await request(app).get("/auth/nowhere");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "Not found" });
  });

  it("answers 500 without internals when a handler fails unexpectedly", async () => {
    const res = await request(app).get("/auth/boom");
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: "Internal error" });
    expect(res.text).not.toContain("hunter2");
  });

  it("answers 503 in the general shape, with Retry-After, when a request outlives its deadline", async () => {
    const res = await request(app).get("/auth/hang");
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ error: "Service unavailable" });
    expect(Number(res.headers["retry-after"])).toBeGreaterThanOrEqual(1);
  });

  it("sends nothing more when the handler finishes after the deadline", async () => {
    const res = await request(app).get("/auth/late");
    expect(res.status).toBe(503);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect((await request(app).get("/auth/nowhere")).status).toBe(404);
  });

  it("does not announce the framework", async () => {
    const res = await request(app).get("/auth/nowhere");
    expect(res.headers["x-powered-by"]).toBeUndefined();
  });
});

describe("cross-origin rules", () => {
  const app = probeApp();

  it("answers a preflight from an allowed origin with 204 and the contract's methods and headers", async () => {
    const res = await request(app)
      .options("/auth/probe")
      .set("Origin", APP_ORIGIN)
      .set("Access-Control-Request-Method", "POST");
    expect(res.status).toBe(204);
    expect(res.headers["access-control-allow-origin"]).toBe(APP_ORIGIN);
    expect(res.headers["access-control-allow-credentials"]).toBe("true");
    expect(res.headers["access-control-allow-methods"]).toBe("GET, POST, PATCH, DELETE, OPTIONS");
    expect(res.headers["access-control-allow-headers"]).toBe("Content-Type, Authorization, x-api-key");
  });

  it.each([
    "https://example.test",
    "https://www.example.test",
    "https://id.example.test",
    "https://startpage.example.test",
    "https://status.example.test",
    "https://calendar.example.test",
    "https://location.example.test",
  ])("allows %s with credentials", async (origin) => {
    const res = await request(app).post("/auth/probe").set("Origin", origin).send({ name: "a" });
    expect(res.status).toBe(200);
    expect(res.headers["access-control-allow-origin"]).toBe(origin);
  });

  it.each(["http://startpage.example.test", "https://evil.test", "https://example.test.evil.test", "null"])(
    "returns no allow-origin header to %s",
    async (origin) => {
      const res = await request(app)
        .options("/auth/probe")
        .set("Origin", origin)
        .set("Access-Control-Request-Method", "POST");
      expect(res.status).toBe(204);
      expect(res.headers["access-control-allow-origin"]).toBeUndefined();
      expect(res.headers["access-control-allow-methods"]).toBeUndefined();
    },
  );

  it("refuses a state-changing request from a foreign origin before the handler runs", async () => {
    const res = await request(app).post("/auth/probe").set("Origin", "https://evil.test").send({ name: "a" });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "Origin not allowed" });
  });

  it("lets any origin call /auth/oidc/ paths, without credentials", async () => {
    const res = await request(app).post("/auth/oidc/token").set("Origin", "https://rp.elsewhere.test");
    expect(res.status).toBe(200);
    expect(res.headers["access-control-allow-origin"]).toBe("*");
    expect(res.headers["access-control-allow-credentials"]).toBeUndefined();
  });

  it("varies on Origin", async () => {
    const res = await request(app).get("/auth/nowhere");
    expect(res.headers["vary"]).toMatch(/Origin/);
  });
});
