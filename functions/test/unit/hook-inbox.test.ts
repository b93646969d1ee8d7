/**
 * The local stack's webhook inbox (tools/hook-inbox.ts) verifies as an app does: a delivery signed
 * as the service signs it, under a secret it was given, verifies and is answered 204; one under
 * another secret, tampered with or too old does not, and is answered 401. Its own process on a free
 * port, as the stack runs it; no emulator.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { systemClock } from "../../src/clock";

const MAIN = join(__dirname, "..", "..", "..", "tools", "hook-inbox.ts");
const SECRET = `whsec_${Buffer.alloc(32, 1).toString("base64")}`;
const FROM_ENV = `whsec_${Buffer.alloc(48, 2).toString("base64")}`;
const OTHER = `whsec_${Buffer.alloc(32, 3).toString("base64")}`;

interface Delivery {
  app: string;
  headers: Record<string, string | null>;
  body: unknown;
  verified: boolean;
  failure: string | null;
}

let inbox: ChildProcess;
let url: string;

beforeAll(async () => {
  // One secret on the command line, one from the environment: both verify.
  inbox = spawn(process.execPath, [MAIN, "--port", "0", "--secret", SECRET], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, HOOK_INBOX_SECRETS: ` ${FROM_ENV},` },
  });
  url = await new Promise<string>((resolve, reject) => {
    inbox.once("exit", (code) => reject(new Error(`the inbox exited ${code}`)));
    inbox.stdout?.on("data", (chunk: Buffer) => {
      const at = /(http:\/\/\S+\/)/.exec(chunk.toString())?.[1];
      if (at) resolve(at);
    });
  });
});

afterAll(async () => {
  const exited = new Promise((resolve) => inbox.once("exit", resolve));
  inbox.kill("SIGTERM");
  await exited;
});

beforeEach(async () => {
  expect((await fetch(`${url}deliveries`, { method: "DELETE" })).status).toBe(204);
});

/** Posts `body` to the app as the service does, signed under `secret` at `at`. */
async function deliver(
  app: string,
  body: string,
  secret: string,
  at = systemClock.now(),
  tamper = false,
): Promise<number> {
  const id = "evt_test";
  const signature = new Webhook(secret).sign(id, at, body);
  const res = await fetch(`${url}${app}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
      "webhook-signature": signature,
    },
    body: tamper ? body.replace("approved", "rejected") : body,
  });
  await res.arrayBuffer();
  return res.status;
}

const deliveries = async (query = "") =>
  ((await (await fetch(`${url}deliveries${query}`)).json()) as { deliveries: Delivery[] }).deliveries;

const event = JSON.stringify({ id: "evt_test", type: "person.approved", data: { note: "<b>&</b>" } });

describe("the webhook inbox", () => {
  it("takes a delivery signed under its secret: 204, kept with its headers and its body parsed", async () => {
    expect(await deliver("startpage", event, SECRET)).toBe(204);
    expect(await deliveries()).toEqual([
      {
        app: "startpage",
        receivedAt: expect.any(String),
        headers: {
          "webhook-id": "evt_test",
          "webhook-timestamp": expect.stringMatching(/^\d+$/),
          "webhook-signature": expect.stringMatching(/^v1,/),
          "content-type": "application/json",
        },
        body: JSON.parse(event),
        verified: true,
        failure: null,
      },
    ]);
    expect(await deliver("startpage", event, FROM_ENV)).toBe(204);
  });

  it.each([
    ["signed under another secret", () => deliver("calendar", event, OTHER), /No matching signature/],
    ["changed on the way", () => deliver("calendar", event, SECRET, systemClock.now(), true), /No matching signature/],
    [
      "signed ten minutes ago",
      () => deliver("calendar", event, SECRET, new Date(systemClock.now().getTime() - 600_000)),
      /timestamp too old/,
    ],
  ])("refuses a delivery %s: 401, kept as not verifying and why", async (_, send, why) => {
    expect(await send()).toBe(401);
    expect(await deliveries()).toEqual([
      expect.objectContaining({ app: "calendar", verified: false, failure: expect.stringMatching(why) }),
    ]);
  });

  it("lists newest first, one app's alone when asked, and escapes what it shows on its page", async () => {
    await deliver("startpage", event, SECRET);
    await deliver("calendar", event, OTHER);
    expect((await deliveries()).map((d) => d.app)).toEqual(["calendar", "startpage"]);
    expect((await deliveries("?app=startpage")).map((d) => d.verified)).toEqual([true]);
    const page = await (await fetch(url)).text();
    expect(page).toMatch(/^<!doctype html><html lang="en">/);
    expect(page).toContain("person.approved to startpage");
    expect(page).toContain("The signature verifies.");
    expect(page).toContain("The signature does not verify:");
    expect(page).toContain("&#60;b&#62;&#38;&#60;/b&#62;");
    expect(page).not.toContain("<b>&");
  });

  it("refuses a body over 1 MB", async () => {
    const res = await fetch(`${url}startpage`, { method: "POST", body: "x".repeat(1024 * 1024 + 1) });
    expect(res.status).toBe(413);
    expect(await deliveries()).toEqual([]);
  });
});
