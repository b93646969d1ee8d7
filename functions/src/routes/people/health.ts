/**
 * `GET /auth/health?window=24h|7d`: the service's health over a window, for administrators, with
 * the people administration's gate (core/status/report). Read-only, and no write anywhere. Each
 * instance keeps a window's report for REPORT_KEPT_MS: a page left open, or several
 * administrators, cost one report's reads (up to a few thousand documents) per window per half
 * minute, not one per request.
 */
import { Router, type Request, type Response } from "express";
import { z } from "zod";
import { healthReport, type HealthReport, type ReportWindow } from "../../core/status/report";
import { ensure } from "../../core/errors";
import type { Deps } from "../../core/deps";
import { ADMIN_NEED, requireAccess } from "../../http/gate";
import { ttlCache } from "../../core/ttl-cache";

const healthQuery = z.object({ window: z.enum(["24h", "7d"]).default("24h") }).strict();

/** How long an instance answers with a report it made. */
export const REPORT_KEPT_MS = 30_000;

export function healthRoutes(deps: Deps): Router {
  const router = Router();
  const made = ttlCache<Promise<HealthReport>>(deps.clock, REPORT_KEPT_MS, 2);
  const reportFor = (window: ReportWindow): Promise<HealthReport> => {
    const kept = made.get(window);
    if (kept !== undefined) return kept;
    const report = healthReport(deps, window);
    made.set(window, report);
    // A report that failed is not kept (a newer one made meanwhile is): the next request tries again.
    report.catch(() => {
      if (made.get(window) === report) made.evict(window);
    });
    return report;
  };
  router.get("/auth/health", async function health(req: Request, res: Response) {
    await requireAccess(deps, req, ADMIN_NEED);
    const query = healthQuery.safeParse(req.query);
    ensure(query.success, "invalid_people_query", "Invalid query: window 24h or 7d");
    res.setHeader("Cache-Control", "no-store");
    res.json(await reportFor(query.data.window));
  });
  return router;
}
