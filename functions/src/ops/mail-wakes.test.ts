import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { emulatedQueueKey, mailFunctionAccount, projectWakes, stackServes } from "./mail-wakes";

/** A stand-in for Cloud Tasks' API (or its emulator): records each task created, answers `stats` to /queueStats. */
async function cloudTasks(stats: Record<string, unknown> = {}) {
  const tasks: Array<{ url: string; task: Record<string, unknown> }> = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString("utf8")));
    req.on("end", () => {
      res.setHeader("Content-Type", "application/json");
      if (req.method === "GET" && req.url === "/queueStats") {
        res.end(JSON.stringify(stats));
        return;
      }
      const { task } = JSON.parse(body) as { task: Record<string, unknown> };
      tasks.push({ url: req.url ?? "", task });
      res.end(JSON.stringify({ task }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { host, tasks, close: () => new Promise((resolve) => server.close(resolve)) };
}

describe("the stack's Cloud Tasks emulator", () => {
  it("serves a project when it holds that project's `mail` queue, as the Functions emulator names it", async () => {
    const emulator = await cloudTasks({ [emulatedQueueKey("demo-identity")]: { numberOfTasks: 0 } });
    try {
      expect(emulatedQueueKey("demo-identity")).toBe("queue:demo-identity-us-central1-mail");
      expect(await stackServes(emulator.host, "demo-identity")).toBe(true);
      expect(await stackServes(emulator.host, "demo-other")).toBe(false);
    } finally {
      await emulator.close();
    }
    // Nothing listening: served by nobody, said at once.
    expect(await stackServes(emulator.host, "demo-identity")).toBe(false);
  });
});

describe("a command's wake on a real project", () => {
  it("reads the service account the deployed `mail` function runs as", async () => {
    const asked: string[] = [];
    const answer = (status: number, body: unknown) =>
      (async (url: string | URL | Request) => {
        asked.push(String(url));
        return new Response(JSON.stringify(body), { status });
      }) as typeof fetch;
    const account = await mailFunctionAccount(
      "my-project",
      async () => "token",
      answer(200, { serviceConfig: { serviceAccountEmail: "123-compute@developer.gserviceaccount.com" } }),
    );
    expect(account).toBe("123-compute@developer.gserviceaccount.com");
    expect(asked).toEqual([
      "https://cloudfunctions.googleapis.com/v2/projects/my-project/locations/us-central1/functions/mail",
    ]);
    await expect(
      mailFunctionAccount("my-project", async () => "token", answer(403, { error: { message: "Permission denied" } })),
    ).rejects.toThrow(/could not be read \(Cloud Functions answered 403: Permission denied\)/);
  });

  it("enqueues a task on the `mail` queue whose token is for that account, not for whoever runs the command", async () => {
    // The admin SDK sends to CLOUD_TASKS_EMULATOR_HOST when it is set: a stand-in here, to see the task.
    const api = await cloudTasks();
    const was = process.env.CLOUD_TASKS_EMULATOR_HOST;
    process.env.CLOUD_TASKS_EMULATOR_HOST = api.host;
    try {
      const wakes = projectWakes("my-project", async () => "mail-runner@my-project.iam.gserviceaccount.com");
      await wakes.wake();
      expect(api.tasks).toHaveLength(1);
      expect(api.tasks[0]?.url).toBe("/projects/my-project/locations/us-central1/queues/mail/tasks");
      expect(api.tasks[0]?.task).toMatchObject({
        httpRequest: { oidcToken: { serviceAccountEmail: "mail-runner@my-project.iam.gserviceaccount.com" } },
      });
      // Nothing of its own to wait for: the command exits once the task is made.
      await wakes.settle(15_000);
    } finally {
      if (was === undefined) delete process.env.CLOUD_TASKS_EMULATOR_HOST;
      else process.env.CLOUD_TASKS_EMULATOR_HOST = was;
      await api.close();
    }
  });
});
