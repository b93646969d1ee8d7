import { Router, type Request, type Response } from "express";
import { z } from "zod";
import { calendarSource, upcomingLocations, weekEvents } from "../../core/calendar/calendar";
import { ensure } from "../../core/errors";
import type { Deps } from "../../core/deps";
import { requireAccess } from "../../http/gate";
import { jsonErrors } from "../../http/presenters";

export const presenter = jsonErrors;

const PROJECT = { project: "startpage" } as const;

export function routes(deps: Deps): Router {
  const router = Router();
  const source = calendarSource(deps);

  // Any day of the wanted week (weeks run Monday to Monday, UTC); this week by default.
  const eventsQuery = z.object({ week: z.iso.date().optional() });
  router.get("/calendar/events", async function events(req: Request, res: Response) {
    await requireAccess(deps, req, PROJECT);
    const query = eventsQuery.safeParse(req.query);
    ensure(query.success, "invalid_query");
    const day = query.data.week === undefined ? deps.clock.now() : new Date(`${query.data.week}T00:00:00Z`);
    // An empty week and an unreachable calendar both answer 200 with no events; `available` tells them apart.
    res.json(await weekEvents(source, day));
  });

  const upcomingQuery = z.object({ days: z.coerce.number().int().min(1).max(31).default(14) });
  router.get("/calendar/upcoming-locations", async function upcoming(req: Request, res: Response) {
    await requireAccess(deps, req, PROJECT);
    const query = upcomingQuery.safeParse(req.query);
    ensure(query.success, "invalid_query");
    res.json({ locations: await upcomingLocations(source, deps.clock.now(), query.data.days) });
  });

  return router;
}
