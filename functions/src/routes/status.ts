import { Router, type Request, type Response } from "express";
import { checkHealth } from "../core/status/health";
import type { Deps } from "../core/deps";
import { requireAccess } from "../http/gate";
import { jsonErrors } from "../http/presenters";

export const presenter = jsonErrors;

export function routes(deps: Deps): Router {
  const router = Router();

  // A health report is an answer, not a failure: 200 whatever it says, so monitors read the body.
  router.get("/status", async function status(req: Request, res: Response) {
    await requireAccess(deps, req, { project: "status" });
    res.json(await checkHealth(deps));
  });

  return router;
}
