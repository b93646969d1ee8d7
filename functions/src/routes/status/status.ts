import { Router, type Request, type Response } from "express";
import { checkHealth } from "../../core/status/health";
import type { Deps } from "../../core/deps";
import { requireAccess } from "../../http/gate";
import { callerOf } from "../../http/caller";
import { jsonErrors } from "../../http/presenters";

export const presenter = jsonErrors;

export function routes(deps: Deps): Router {
  const router = Router();

  // A health report is an answer, not a failure: 200 whatever it says, so monitors read the body.
  // `caller` is where the service believes this request came from: how an operator checks
  // CLIENT_ADDRESS_HOPS against the address they know is theirs.
  router.get("/status", async function status(req: Request, res: Response) {
    await requireAccess(deps, req, { project: "status" });
    const { client, network } = callerOf(req, deps.config.clientAddressHops);
    res.json({ ...(await checkHealth(deps)), caller: { client, network } });
  });

  return router;
}
