/**
 * The administrators' review of apps that registered themselves, beside the people's review
 * queue and with its gate: the waiting apps, and deciding several at once. A client id may be an
 * https URL, so ids travel in the query's cursor and the body, never in a path.
 */
import { Router, type Request, type Response } from "express";
import { z } from "zod";
import { clientQueue, decideClients } from "../../core/oidc/client-review";
import { ensure, rowFor } from "../../core/errors";
import type { Deps } from "../../core/deps";
import { parseBody } from "../../http/body";
import { ADMIN_NEED, requireAccess } from "../../http/gate";
import { asAdmin } from "../../http/acting";
import { cursorOf, readCursor } from "../../http/cursor";

const unique = <T>(items: T[]) => [...new Set(items)];

export function clientReviewRoutes(deps: Deps): Router {
  const router = Router();

  const queueQuery = z
    .object({ limit: z.coerce.number().int().min(1).max(100).default(25), cursor: z.string().max(3000).optional() })
    .strict();
  router.get("/auth/clients/queue", async function clientsQueue(req: Request, res: Response) {
    await requireAccess(deps, req, ADMIN_NEED);
    const query = queueQuery.safeParse(req.query);
    ensure(query.success, "invalid_people_query", "Invalid query: limit 1 to 100, and a cursor this list gave");
    const page = await clientQueue(deps, query.data.limit, readCursor(query.data.cursor, "clients"));
    res.setHeader("Cache-Control", "no-store");
    res.json({ waiting: page.waiting, clients: page.clients, next: cursorOf(page.next, "clients") });
  });

  const reviewBody = z
    .object({
      // A client id is a short token, or its metadata document's https URL (at most 2048 characters).
      clientIds: z.array(z.string().min(1).max(2048)).min(1).max(100).transform(unique),
      status: z.enum(["approved", "blocked"]),
    })
    .strict();
  router.post("/auth/clients/review", async function reviewClients(req: Request, res: Response) {
    const admin = await requireAccess(deps, req, ADMIN_NEED);
    const { clientIds, status } = await parseBody(req, reviewBody, "invalid_person_change");
    const results = await decideClients(deps, clientIds, status, asAdmin(admin, req));
    res.json({
      results: results.map((r) =>
        "error" in r
          ? {
              clientId: r.clientId,
              error: r.detail ?? rowFor(r.error).message,
              reason: rowFor(r.error).reason ?? r.error,
            }
          : { clientId: r.clientId, client: { name: r.client.name, review: r.client.review }, told: r.told },
      ),
    });
  });

  return router;
}
