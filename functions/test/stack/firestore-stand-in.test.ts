/** The stand-in launcher itself (tools/firestore-stand-in), on an instance of this test's own. */
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { firestoreAt, freePort, startStandIn, stopped } from "../support/own-firestore";

describe("Firestore stand-in", () => {
  let port: number;
  let standIn: ChildProcess;

  beforeAll(async () => {
    port = await freePort();
    standIn = await startStandIn(port);
  });
  afterAll(() => stopped(standIn));

  it("answers GET / with Ok, as the official emulator does", async () => {
    const res = await fetch(`http://127.0.0.1:${port}/`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("Ok");
  });

  it("clears every document on DELETE /emulator/v1/projects/<p>/databases/(default)/documents", async () => {
    const db = firestoreAt(`127.0.0.1:${port}`);
    const doc = db.collection("sentinels").doc("s");
    await doc.set({ here: true });
    const res = await fetch(
      `http://127.0.0.1:${port}/emulator/v1/projects/${process.env.GCLOUD_PROJECT}/databases/(default)/documents`,
      { method: "DELETE" },
    );
    expect(res.status).toBe(200);
    expect((await doc.get()).exists).toBe(false);
    await db.terminate();
  });

  it("exits non-zero when its port is taken", async () => {
    const second = spawn(
      process.execPath,
      [join(__dirname, "..", "..", "..", "tools", "firestore-stand-in", "main.ts"), "--port", String(port)],
      { stdio: "ignore" },
    );
    const code = await new Promise<number | null>((resolve) => second.once("exit", resolve));
    expect(code).not.toBe(0);
    expect(code).not.toBeNull();
  });
});
