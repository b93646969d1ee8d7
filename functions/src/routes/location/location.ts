import { Router, type Request, type Response } from "express";
import { calendarSource, currentLocation } from "../../core/calendar/calendar";
import type { Deps } from "../../core/deps";
import { requireAccess } from "../../http/gate";
import { jsonErrors } from "../../http/presenters";

export const presenter = jsonErrors;

export function routes(deps: Deps): Router {
  const router = Router();
  const source = calendarSource(deps);

  // Always 200: without a credential that opens the start page (or when it cannot be checked),
  // or when the calendar cannot be read, the answer is the fallback: the configured default.
  router.get("/location", async function location(req: Request, res: Response) {
    const fallback = { location: deps.config.defaultLocation, source: "default" as const, until: null };
    const allowed = await requireAccess(deps, req, { project: "startpage" }).then(
      () => true,
      () => false,
    );
    res.json(allowed ? await currentLocation(source, deps.clock.now(), deps.config.defaultLocation) : fallback);
  });

  return router;
}
