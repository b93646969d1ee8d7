/** POST /auth/otp/send: one code mailed, kept as keyed hashes, the same answer for strangers, and its limits. */
import request from "supertest";
import { HOUR, MINUTE, SECOND } from "../../src/clock";
import { cryptoRandom } from "../../src/random";
import type { SendBudgets } from "../../src/core/settings";
import { TEST_CODE_PEPPER, testConfig, UNLIMITED_SENDS, unique } from "../support/deps";
import { allTasksIdle } from "../support/task-queue";
import { codeFor, codeIn, settledCount, waitForMail } from "../support/inbox";
import { personFor } from "../support/people";
import {
  RACE_ROUND_MS,
  RUNS,
  fresh,
  send,
  signIn,
  verify,
  personAddress,
  strangerAddress,
  otherThan,
  idOf,
  storedCode,
  storedLimits,
  recordingRandom,
} from "../support/email-codes";

describe("POST /auth/otp/send", () => {
  it("mails a six-digit sign-in code to an address on a person and answers 200 ok", async () => {
    const { app } = fresh();
    const email = await personAddress();
    const res = await send(app, { email });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
    const [mail] = await waitForMail(email);
    const code = codeIn(mail!);
    expect(code).toMatch(/^[0-9]{6}$/);
    expect(mail!.envelope.to.map((r) => r.address)).toEqual([email]);
    expect(mail!.subject).toBe("Your sign-in code");
    for (const body of [mail!.text, mail!.html]) {
      expect(body).toContain(code);
      expect(body).toContain("10 minutes");
      expect(body).toMatch(/did not ask to sign in, you can ignore this email/);
    }
    expect(JSON.stringify(mail!.headers)).not.toContain(code);
    expect(`${mail!.text}${mail!.html}`).not.toMatch(/https?:\/\//);
  });

  it("stores neither the code nor the address: only keyed hashes, with the key's id", async () => {
    const { app } = fresh();
    const email = await personAddress();
    await send(app, { email });
    const code = await codeFor(email);
    const stored = await storedCode(email);
    expect(stored).toMatchObject({
      kid: "test-pepper-1",
      state: "ready",
      attempts: 0,
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const everything = JSON.stringify([stored, await storedLimits(email)]);
    expect(everything).not.toContain(code);
    expect(everything).not.toContain(email);
    expect(idOf(email)).not.toContain(email.split("@")[0]);
  });

  it("answers an address on no account with the same 200 ok and headers, and sends no mail", async () => {
    const { app } = fresh();
    const known = await send(app, { email: await personAddress() });
    const email = strangerAddress();
    const unknown = await send(app, { email });
    expect(unknown.status).toBe(known.status);
    expect(unknown.body).toEqual(known.body);
    // Each answer's own date and trace (X-Trace-Id, new for every request) aside, nothing differs.
    const headers = (r: request.Response) =>
      Object.entries(r.headers).filter(([name]) => name !== "date" && name !== "x-trace-id");
    expect(headers(unknown)).toEqual(headers(known));
    expect(await settledCount(email)).toBe(0);
  });

  it("holds an address on no account to the same limits, and stores the same records", async () => {
    const random = recordingRandom();
    const { app, deps } = fresh({ random });
    const email = strangerAddress();
    expect((await send(app, { email })).status).toBe(200);
    expect(await storedCode(email)).toMatchObject({ state: "ready", attempts: 0 });
    expect((await storedLimits(email))?.sends).toHaveLength(1);
    deps.clock.advance(59 * SECOND);
    expect((await send(app, { email })).status).toBe(429);
    // Guesses at the code nobody received run out exactly as any other code's do.
    const wrong = otherThan(random.lastCode());
    for (let i = 0; i < 4; i++) expect((await verify(app, { email, otp: wrong })).body.error).toBe("Invalid code");
    expect((await verify(app, { email, otp: wrong })).body.error).toBe("Too many attempts. Request a new code.");
  });

  it("mails a request-access code to a stranger, saying what it is for", async () => {
    const { app } = fresh();
    const email = strangerAddress();
    expect((await send(app, { email, purpose: "request-access" })).body).toEqual({ ok: true });
    const [mail] = await waitForMail(email);
    expect(mail!.subject).toBe("Confirm your email address");
    expect(mail!.text).toMatch(/confirm this address for your access request/);
    expect(mail!.text).toMatch(/did not ask for access, you can ignore this email/);
  });

  it.each([
    ["no email", (_e: string) => ({})],
    ["a number", () => ({ email: 42 })],
    ["an empty string", () => ({ email: "" })],
    ["no domain", (e: string) => ({ email: e.split("@")[0] })],
    ["a display name", (e: string) => ({ email: `Eve <${e}>` })],
    ["a list", (e: string) => ({ email: `${e}, ${e.replace("@", "-2@")}` })],
    ["a CR/LF header injection", (e: string) => ({ email: `${e}\r\nBcc: ${e.replace("@", "-bcc@")}` })],
    ["a bare LF", (e: string) => ({ email: `${e}\nSubject: hi` })],
    ["a quoted local part that routes elsewhere", (e: string) => ({ email: `"${e}"@example.test` })],
    ["a comment", (e: string) => ({ email: e.replace("@", "(x)@") })],
    ["an IP-literal domain", (e: string) => ({ email: `${e.split("@")[0]}@[127.0.0.1]` })],
    ["two at signs", (e: string) => ({ email: `${e}@example.test` })],
    ["a Unicode line separator", (e: string) => ({ email: `${e}\u2028Bcc: ${e}` })],
  ])("answers 400 A valid email is required and mails nobody for %s", async (_label, body) => {
    const { app } = fresh();
    const marker = unique("eve");
    const res = await send(app, body(`${marker}@example.test`));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "A valid email is required", reason: "email_invalid" });
    expect(await settledCount(marker)).toBe(0);
  });

  it("answers 400 for a purpose it does not know", async () => {
    const { app } = fresh();
    const res = await send(app, { email: strangerAddress(), purpose: "admin" });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: expect.stringMatching(/purpose/), reason: "purpose_invalid" });
  });

  it("gives every variant of one address one code, one rate-limit record and one attempt budget", async () => {
    const { app } = fresh();
    const local = unique("v");
    await personFor({ uid: unique("uid"), email: `${local}@xn--bcher-kva.example` });
    expect((await send(app, { email: ` ${local.toUpperCase()}@Bücher.Example ` })).status).toBe(200);
    const again = await send(app, { email: `${local}@XN--BCHER-KVA.EXAMPLE` });
    expect(again.status).toBe(429);
    const code = await codeFor(`${local}@xn--bcher-kva.example`);
    for (const variant of [`${local}@bücher.example`, `${local.toUpperCase()}@XN--BCHER-KVA.example`]) {
      expect((await verify(app, { email: variant, otp: otherThan(code) })).status).toBe(400);
    }
    expect(await storedCode(`${local}@xn--bcher-kva.example`)).toMatchObject({ attempts: 2 });
    expect((await verify(app, { email: `\t${local}@BÜCHER.example`, otp: code })).body).toEqual({ valid: true });
  });

  it("refuses a resend at 59 seconds and allows it at 60, and the new code replaces the old one", async () => {
    const { app, deps } = fresh();
    const email = await personAddress();
    await send(app, { email });
    const first = await codeFor(email);
    deps.clock.advance(59 * SECOND);
    const early = await send(app, { email });
    expect(early.status).toBe(429);
    expect(early.body).toEqual({ error: "A code was just sent. Please wait a minute.", reason: "resend_too_soon" });
    // The page tells the person how long to wait.
    expect(early.headers["retry-after"]).toBe("1");
    deps.clock.advance(SECOND);
    expect((await send(app, { email })).status).toBe(200);
    const second = await codeFor(email, 2);
    expect(await settledCount(email)).toBe(2);
    if (first !== second)
      expect((await verify(app, { email, otp: first })).body).toEqual({
        valid: false,
        error: "Invalid code",
        reason: "code_invalid",
      });
    expect((await verify(app, { email, otp: second })).body).toEqual({ valid: true });
  });

  it("refuses the sixth send inside the hour, and allows it once the first send is an hour old", async () => {
    const { app, deps } = fresh();
    const email = await personAddress();
    for (let i = 0; i < 5; i++) {
      expect((await send(app, { email })).status).toBe(200);
      // Sent before the clock moves on: a jump past the outbox's lease would send it again.
      await allTasksIdle();
      deps.clock.advance(MINUTE);
    }
    const sixth = await send(app, { email });
    expect(sixth.status).toBe(429);
    expect(sixth.body).toEqual({ error: "Too many codes requested. Try again later.", reason: "hourly_limit" });
    expect(sixth.headers["retry-after"]).toBe(String((HOUR - 5 * MINUTE) / SECOND));
    deps.clock.advance(HOUR - 5 * MINUTE - 1);
    const last = await send(app, { email });
    expect(last.status).toBe(429);
    // Rounded up: a millisecond to go is still a second to wait.
    expect(last.headers["retry-after"]).toBe("1");
    deps.clock.advance(1);
    expect((await send(app, { email })).status).toBe(200);
    expect(await settledCount(email)).toBe(6);
  });

  it("answers 503 Email is not configured, and records nothing", async () => {
    const { app } = fresh({ config: testConfig({ smtp: null }), mailer: null });
    const email = await personAddress();
    const res = await send(app, { email });
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ error: "Email is not configured", reason: "email_not_configured" });
    expect(await storedLimits(email)).toBeNull();
    expect(await storedCode(email)).toBeNull();
  });

  it(
    "sends exactly one code and one mail when 30 sends for one address race",
    async () => {
      const { app } = fresh({}, true);
      for (let run = 0; run < RUNS; run++) {
        const email = await personAddress();
        const variants = [email, email.toUpperCase(), ` ${email} `];
        const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => send(app, { email: variants[i % 3] })));
        expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
        expect(
          answers.filter((a) => a.status === 429 && a.body.error === "A code was just sent. Please wait a minute."),
        ).toHaveLength(29);
        expect((await storedLimits(email))?.sends).toHaveLength(1);
        expect(await storedCode(email)).toMatchObject({ state: "ready", attempts: 0 });
        await waitForMail(email);
        expect(await settledCount(email)).toBe(1);
      }
    },
    RUNS * RACE_ROUND_MS,
  );

  it("keeps honouring a code hashed with a key still in the pepper ring, and moves the address to the new key", async () => {
    const rotatedPepper = `test-pepper-2:the-next-pepper-secret-0123456789,${TEST_CODE_PEPPER}`;
    const before = fresh();
    const after = fresh({ config: testConfig({ codePepper: rotatedPepper }) });
    const retired = fresh({ config: testConfig({ codePepper: "test-pepper-2:the-next-pepper-secret-0123456789" }) });
    const email = await personAddress();
    await send(before.app, { email });
    const code = await codeFor(email);
    expect((await verify(after.app, { email, otp: code })).body).toEqual({ valid: true });
    expect((await verify(retired.app, { email, otp: code })).body).toEqual({
      valid: false,
      error: "Invalid code",
      reason: "code_invalid",
    });
    // The rotated ring still sees the send of a minute ago.
    expect((await send(after.app, { email })).status).toBe(429);
    after.deps.clock.advance(MINUTE);
    expect((await send(after.app, { email })).status).toBe(200);
    expect(await storedCode(email)).toBeNull();
    expect(await storedCode(email, rotatedPepper)).toMatchObject({ kid: "test-pepper-2", state: "ready" });
    expect((await storedLimits(email, rotatedPepper))?.sends).toHaveLength(2);
  });
});

describe("POST /auth/otp/send budgets beyond the address", () => {
  const octet = () => cryptoRandom.int(1, 255);
  /** A client address in a /24 of its own (almost surely: 16 million of them). */
  const network = () => `${cryptoRandom.int(11, 100)}.${octet()}.${octet()}.${octet()}`;
  const budgeted = (budgets: Partial<SendBudgets>, clientAddressHops = 1) => {
    const sendBudgets = { ...UNLIMITED_SENDS, ...budgets };
    // A pepper of its own: budget records are keyed by it, so the shared ones (the service's
    // shards, a domain) start empty here whatever other tests have sent.
    const codePepper = `budget-${cryptoRandom.int(0, 1e9)}:${cryptoRandom.token(24)}`;
    return fresh({ config: testConfig({ sendBudgets, clientAddressHops, codePepper }) });
  };
  /** A send as it reaches the function: `forwarded` is the whole X-Forwarded-For the proxies pass on. */
  const sendVia = (app: Parameters<typeof send>[0], forwarded: string, email: string, purpose = "signin") =>
    request(app).post("/auth/otp/send").set("X-Forwarded-For", forwarded).send({ email, purpose });
  const sendFrom = (app: Parameters<typeof send>[0], from: string, email: string, purpose = "signin") =>
    sendVia(app, `${network()}, ${from}`, email, purpose);

  it("stops one client after its hourly budget, whichever addresses it asks for, with Retry-After", async () => {
    const { app, deps } = budgeted({ perClientPerHour: 20 });
    const from = network();
    const tag = unique("victim");
    const answers = [];
    // Sign-in codes to forty people, so the mails can be counted.
    for (let i = 1; i <= 40; i++) {
      const email = `${tag}+${i}@example.test`;
      await personFor({ uid: unique("uid"), email });
      answers.push(await sendFrom(app, from, email));
    }
    expect(answers.filter((a) => a.status === 200)).toHaveLength(20);
    const refused = answers.slice(20);
    for (const res of refused) {
      expect(res.status).toBe(429);
      expect(res.body).toEqual({
        error: "Too many codes requested from this network. Try again later.",
        reason: "client_budget",
      });
      expect(Number(res.headers["retry-after"])).toBeGreaterThan(0);
      expect(Number(res.headers["retry-after"])).toBeLessThanOrEqual(3600);
    }
    expect(await settledCount(tag)).toBe(20);
    // Another network is not held back; this one is again once its first send is an hour old.
    expect((await sendFrom(app, network(), `${tag}+other@example.test`)).status).toBe(200);
    deps.clock.advance(HOUR);
    expect((await sendFrom(app, from, `${tag}+later@example.test`)).status).toBe(200);
  });

  it("counts addresses on no account exactly as addresses on a person: the same answers at the same point", async () => {
    const { app } = budgeted({ perClientPerHour: 4 });
    const known = network();
    const unknown = network();
    const a = [];
    const b = [];
    for (let i = 0; i < 5; i++) {
      a.push(await sendFrom(app, known, await personAddress()));
      b.push(await sendFrom(app, unknown, strangerAddress()));
    }
    expect(a.map((r) => [r.status, r.body])).toEqual(b.map((r) => [r.status, r.body]));
    expect(a.map((r) => r.status)).toEqual([200, 200, 200, 200, 429]);
  });

  it("counts an IPv6 client by its /64", async () => {
    const { app } = budgeted({ perClientPerHour: 2 });
    const prefix = `2001:db8:${cryptoRandom.int(0, 65536).toString(16)}:${cryptoRandom.int(0, 65536).toString(16)}`;
    const statuses = [];
    for (const host of ["::1", "::2", ":0:0:0:3"])
      statuses.push((await sendFrom(app, `${prefix}${host}`, strangerAddress())).status);
    expect(statuses).toEqual([200, 200, 429]);
  });

  it("holds one network (an IPv6 /48 walked /64 by /64) to 5% of the service's minute", async () => {
    const { app, deps } = budgeted({ perServicePerMinute: 100 });
    const block = `2001:db8:${cryptoRandom.int(0, 65536).toString(16)}`;
    const statuses = [];
    for (let i = 1; i <= 8; i++)
      statuses.push((await sendFrom(app, `${block}:${i.toString(16)}::1`, strangerAddress())).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
    // Everyone else still gets codes; the block does again a minute later.
    expect((await sendFrom(app, network(), strangerAddress())).status).toBe(200);
    deps.clock.advance(MINUTE);
    expect((await sendFrom(app, `${block}:99::1`, strangerAddress())).status).toBe(200);
  });

  it("holds a caller that writes every client entry itself (around the CDN) to 25% of the service's minute", async () => {
    // Behind two trusted proxies, a caller reaching the function's own address appears as the
    // last entry, and everything left of it is its own writing: every send names a new "client".
    const { app } = budgeted({ perServicePerMinute: 40 }, 2);
    const caller = network();
    const statuses = [];
    for (let i = 0; i < 14; i++)
      statuses.push((await sendVia(app, `${network()}, ${caller}`, strangerAddress())).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.slice(10)).toEqual([429, 429, 429, 429]);
  });

  it("holds the addresses of one mail domain to its hourly budget, except public mail providers", async () => {
    const { app, deps } = budgeted({ perDomainPerHour: 3, domainBudgetExempt: ["public.example"] });
    const domain = `${unique("org")}.example`;
    const to = () => `${unique("staff")}@${domain}`;
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await sendFrom(app, network(), to(), "request-access")).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const refused = await sendFrom(app, network(), to(), "request-access");
    expect(refused.body).toEqual({
      error: "Too many codes have been requested for addresses at this domain. Try again later.",
      reason: "domain_budget",
    });
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    // Another domain is not held back, nor a public provider's, which no one organisation owns.
    expect((await sendFrom(app, network(), `${unique("x")}@other-${domain}`, "request-access")).status).toBe(200);
    for (let i = 0; i < 5; i++)
      expect((await sendFrom(app, network(), `${unique("p")}@public.example`, "request-access")).status).toBe(200);
    deps.clock.advance(HOUR);
    expect((await sendFrom(app, network(), to(), "request-access")).status).toBe(200);
  });

  it("stops counting a sign-in code once it signs its person in, and gives its client room for one more unused code", async () => {
    const { app } = budgeted({ perClientPerHour: 2 });
    const from = network();
    const first = await personAddress();
    expect((await sendFrom(app, from, first)).status).toBe(200);
    const used = await signIn(app, { email: first, otp: await codeFor(first) });
    expect(used.status).toBe(200);
    const statuses = [];
    for (let i = 2; i <= 5; i++) statuses.push((await sendFrom(app, from, strangerAddress())).status);
    // Unused, the first would leave room for one more; used, it is not counted and earns one.
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  it("holds a catch-all reader of its own mail to its requests for access, and others sign in meanwhile", async () => {
    const { app } = budgeted({ perClientPerHour: 5, perServicePerMinute: 600 });
    const from = network();
    const domain = `${unique("catchall")}.example`;
    // Request-access codes go to any address: the owner of a catch-all domain reads and verifies every one.
    const statuses = [];
    for (let i = 0; i < 8; i++) {
      const email = `${unique("a")}@${domain}`;
      const sent = await sendFrom(app, from, email, "request-access");
      statuses.push(sent.status);
      if (sent.status !== 200) continue;
      const checked = await verify(app, { email, otp: await codeFor(email), purpose: "request-access" });
      expect(checked.status).toBe(200);
    }
    // Five, the client's requests for access, and no more: the queue has grown by five.
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
    // Another network's people sign in as ever.
    for (let i = 0; i < 3; i++) expect((await sendFrom(app, network(), await personAddress())).status).toBe(200);
  });

  it("holds any one network to half the service's minute, used codes or not", async () => {
    const { app } = budgeted({ perClientPerHour: 1000, perServicePerMinute: 20 });
    const office = network();
    const statuses = [];
    for (let i = 0; i < 12; i++) {
      const email = await personAddress();
      const sent = await sendVia(app, `${office}`, email);
      statuses.push(sent.status === 429 ? sent.body.reason : sent.status);
      if (sent.status === 200) expect((await signIn(app, { email, otp: await codeFor(email) })).status).toBe(200);
    }
    // Half of 20: ten, however many of its codes were used; the network's unused budget (5 % of
    // 20, one) never refused any, as each was used before the next.
    expect(statuses).toEqual([...Array(10).fill(200), "client_budget", "client_budget"]);
    // The other half is everyone else's.
    for (let i = 0; i < 10; i++) expect((await sendFrom(app, network(), strangerAddress())).status).toBe(200);
  });

  it("counts an unused code against its client for the whole hour", async () => {
    const { app, deps } = budgeted({ perClientPerHour: 1 });
    const from = network();
    expect((await sendFrom(app, from, strangerAddress())).status).toBe(200);
    deps.clock.advance(HOUR - SECOND);
    const refused = await sendFrom(app, from, strangerAddress());
    expect(refused.status).toBe(429);
    expect(refused.body.reason).toBe("client_budget");
    expect(refused.headers["retry-after"]).toBe("1");
    deps.clock.advance(SECOND);
    expect((await sendFrom(app, from, strangerAddress())).status).toBe(200);
  });

  it("never runs dry for an office whose people use their codes: bursts at once from one network to one domain", async () => {
    const { app } = budgeted({ perClientPerHour: 5, perDomainPerHour: 5 });
    const from = network();
    const domain = `${unique("corp")}.example`;
    for (let round = 0; round < 4; round++) {
      const staff = await Promise.all(
        Array.from({ length: 5 }, async () => {
          const email = `${unique("staff")}@${domain}`;
          await personFor({ uid: unique("uid"), email }, { projects: ["startpage"] });
          return email;
        }),
      );
      const answers = await Promise.all(staff.map((email) => sendFrom(app, from, email)));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
      for (const email of staff) expect((await signIn(app, { email, otp: await codeFor(email) })).status).toBe(200);
    }
  });

  it("lets exactly the budget through when 30 sends from one client race", async () => {
    const { app } = budgeted({ perClientPerHour: 10 });
    const from = network();
    const answers = await Promise.all(Array.from({ length: 30 }, () => sendFrom(app, from, strangerAddress())));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(10);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(20);
  });

  it("lets exactly the service's minute through when 30 sends from as many networks race, its count shared", async () => {
    // Sends that ask for the service's minute while a count of it runs share the next count.
    const { app } = budgeted({ perServicePerMinute: 10 });
    const answers = await Promise.all(Array.from({ length: 30 }, () => sendFrom(app, network(), strangerAddress())));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(10);
    expect(answers.filter((a) => a.status === 429).map((a) => a.body.reason)).toEqual(Array(20).fill("service_budget"));
  });

  it("stops the whole service after its per-minute budget, for every network, until the minute has passed", async () => {
    const { app, deps } = budgeted({ perServicePerMinute: 3 });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push(await sendFrom(app, network(), strangerAddress()));
    expect(statuses.map((r) => [r.status, r.body])).toEqual([
      [200, { ok: true }],
      [200, { ok: true }],
      [200, { ok: true }],
    ]);
    const refused = await sendFrom(app, network(), strangerAddress());
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      error: "Too many codes are being requested right now. Try again in a minute.",
      reason: "service_budget",
    });
    expect(Number(refused.headers["retry-after"])).toBeLessThanOrEqual(60);
    deps.clock.advance(MINUTE);
    expect((await sendFrom(app, network(), strangerAddress())).status).toBe(200);
  });
});
