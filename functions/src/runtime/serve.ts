import type { Request, Response } from "express";
import { productionDeps } from "../deps";
import type { Group } from "../groups";
import { createApp } from "../http/app";
import { jsonErrors } from "../http/presenters";
import { consoleLogger } from "../logger";

export type AppHandler = (req: Request, res: Response) => void;

/**
 * A function's handler, the entry of its bundle (bundles.ts): the group's app is built on the
 * first request, when the settings and secrets are read. A group that cannot be built (a missing
 * secret, say) answers 500 without internals and is tried again next time.
 */
export function serve(name: string, group: Group): AppHandler {
  let app: AppHandler | undefined;
  // Under the Functions emulator every answer names the function that gave it, so a test can see
  // where Hosting sent a path (test/platform/hosting.test.ts); deployed functions say nothing of themselves.
  const emulated = process.env.FUNCTIONS_EMULATOR === "true";
  return (req, res) => {
    if (emulated) res.setHeader("X-Function", name);
    if (!app) {
      try {
        const deps = productionDeps();
        app = createApp(group.routes(deps), {
          presenter: group.presenter,
          allowedOrigins: deps.config.allowedOrigins,
          idOrigin: new URL(deps.config.idUrl).origin,
          log: deps.log,
        });
      } catch (err) {
        consoleLogger.error(`the ${name} function could not start`, {
          error: err instanceof Error ? err.stack : String(err),
        });
        jsonErrors(res, "internal");
        return;
      }
    }
    app(req, res);
  };
}
