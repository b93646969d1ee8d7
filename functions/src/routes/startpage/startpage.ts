import { Router, type Request, type Response } from "express";
import { z } from "zod";
import { checkApiKey } from "../../core/startpage/api-keys";
import { ensure } from "../../core/errors";
import { markRead, notificationsFor, notify } from "../../core/startpage/notifications";
import type { Deps } from "../../core/deps";
import { parseBody } from "../../http/body";
import { requireAccess } from "../../http/gate";
import { jsonErrors } from "../../http/presenters";

export const presenter = jsonErrors;

const PROJECT = { project: "startpage" } as const;

export function routes(deps: Deps): Router {
  const router = Router();

  const notifyBody = z
    .object({
      title: z.string().trim().min(1).max(200),
      body: z.string().trim().min(1).max(5000),
      link: z
        .url({ protocol: /^https$/ })
        .max(2000)
        .optional(),
      level: z.enum(["info", "warning", "critical"]).default("info"),
      audience: z
        .union([
          z.literal("everyone"),
          z.object({ personIds: z.array(z.string().min(1).max(128)).min(1).max(500) }).strict(),
        ])
        .default("everyone"),
    })
    .strict();
  router.post("/startpage/notify", async function postNotification(req: Request, res: Response) {
    // The key is only ever read from its header: a key in a URL ends up in logs and histories.
    const presented = req.headers["x-api-key"];
    const key = typeof presented === "string" && presented !== "" ? await checkApiKey(deps, presented) : null;
    ensure(key, "unauthorized");
    const input = await parseBody(req, notifyBody, "invalid_notification");
    const id = await notify(deps, {
      title: input.title,
      body: input.body,
      link: input.link ?? null,
      level: input.level,
      personIds: input.audience === "everyone" ? null : [...new Set(input.audience.personIds)],
    });
    res.status(201).json({ id });
  });

  const listQuery = z.object({
    limit: z.coerce.number().int().min(1).max(100).default(20),
    before: z.string().max(64).optional(),
  });
  router.get("/startpage/notifications", async function listNotifications(req: Request, res: Response) {
    const { person } = await requireAccess(deps, req, PROJECT);
    const query = listQuery.safeParse(req.query);
    ensure(query.success, "invalid_query");
    res.json(await notificationsFor(deps, person.id, query.data.limit, query.data.before ?? null));
  });

  const readBody = z.union([
    z.object({ ids: z.array(z.string().min(1).max(64)).min(1).max(100) }).strict(),
    z.object({ all: z.literal(true) }).strict(),
  ]);
  router.post("/startpage/notifications/read", async function markNotificationsRead(req: Request, res: Response) {
    const { person } = await requireAccess(deps, req, PROJECT);
    const change = await parseBody(req, readBody, "invalid_query");
    await markRead(deps, person.id, change);
    res.json({ ok: true });
  });

  return router;
}
