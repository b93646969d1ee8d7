import express from "express";
import { onTaskDispatched } from "firebase-functions/v2/tasks";
import { productionDeps } from "../deps";
import type { Task } from "../groups";
import { consoleLogger, errorText } from "../logger";
import type { AppHandler } from "./serve";

/**
 * A task function's handler, the entry of its bundle (bundles.ts): the SDK's task-queue handler,
 * which reads the task from Cloud Tasks' request and answers it, running the task with the
 * production dependencies. A task that throws is logged once, by its message, and the queue
 * retries it. The SDK's handler wants express's request and response, which the platform gives
 * it; an express app of its own gives it them wherever else the bundle is served (the build's
 * rehearsal serves it from a plain HTTP server).
 */
export function taskHandler(name: string, task: Task): AppHandler {
  const dispatched = onTaskDispatched(async () => {
    try {
      await task.run(productionDeps());
    } catch (err) {
      consoleLogger.error(`the ${name} task failed`, { error: errorText(err) });
      throw err;
    }
  });
  const app = express();
  app.disable("x-powered-by");
  app.use(express.json({ limit: "16kb" }));
  // The SDK's request type adds the raw body, which its handler does not read for a task.
  app.use((req, res) => void dispatched(req as Parameters<typeof dispatched>[0], res));
  return app;
}
