import { pacedMailer } from "./mailer";
import { cryptoRandom } from "../random";

const message = { to: "ada@example.test", subject: "s", text: "t", html: "h" };

async function elapsed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work().catch(() => undefined);
  return performance.now() - started;
}

describe("pacedMailer", () => {
  it("pads real sends to the floor and imitates them no faster", async () => {
    const mailer = pacedMailer(() => Promise.resolve(), cryptoRandom, { floorMs: 60 });
    expect(await elapsed(() => mailer.send(message))).toBeGreaterThanOrEqual(55);
    expect(await elapsed(() => mailer.imitateSend())).toBeGreaterThanOrEqual(55);
  });

  it("draws the imitation's wait from real sends' durations", async () => {
    const mailer = pacedMailer(() => new Promise((resolve) => setTimeout(resolve, 120)), cryptoRandom, { floorMs: 10 });
    await mailer.send(message);
    expect(await elapsed(() => mailer.imitateSend())).toBeGreaterThanOrEqual(110);
  });

  it("fails the imitation while real sends fail, and stops once one succeeds", async () => {
    let down = true;
    const mailer = pacedMailer(
      () => (down ? Promise.reject(new Error("ECONNREFUSED")) : Promise.resolve()),
      cryptoRandom,
      { floorMs: 5 },
    );
    await expect(mailer.send(message)).rejects.toThrow("ECONNREFUSED");
    await expect(mailer.imitateSend()).rejects.toThrow();
    down = false;
    await mailer.send(message);
    await expect(mailer.imitateSend()).resolves.toBeUndefined();
  });

  it("stops echoing a failure after the echo window", async () => {
    const mailer = pacedMailer(() => Promise.reject(new Error("down")), cryptoRandom, {
      floorMs: 5,
      failureEchoMs: 30,
    });
    await expect(mailer.send(message)).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 40));
    await expect(mailer.imitateSend()).resolves.toBeUndefined();
  });
});
