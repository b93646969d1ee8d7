/**
 * The people group: the administrators' API of people (`/auth/people`: the list, the review queue,
 * a person's record, history, data, sessions, passkeys and apps, changing and erasing them), with
 * the two other audiences it serves mounted beside it: the person's own account (own-account.ts)
 * and the administrators' invitations (invitations.ts); and the administrators' review of the apps
 * that registered themselves (client-review.ts, `/auth/clients`).
 */
import { Router, type Request, type Response } from "express";
import { z } from "zod";
import { changePerson, reviewMany } from "../../core/people/change-person";
import { NAME_MAX } from "../../core/people/acting";
import { findPeople, findPerson, reviewQueue } from "../../core/people/find-people";
import { personHistory } from "../../core/people/history";
import { exportPersonData } from "../../core/account/own-data";
import { erasePerson } from "../../core/account/erasure";
import { appsOf, disconnectApp } from "../../core/oidc/apps";
import { adminView, historyView } from "../../core/people/admin-view";
import { endSessions, listSessions } from "../../core/sessions/active-sessions";
import { listPasskeys, passkeyView, removeAllPasskeys, removePasskey } from "../../core/passkeys/passkeys";
import { ensure } from "../../core/errors";
import type { Deps } from "../../core/deps";
import { parseBody } from "../../http/body";
import { rowFor } from "../../core/errors";
import { ADMIN_NEED, requireAccess } from "../../http/gate";
import { clearSessionCookie } from "../../http/cookies";
import { jsonErrors } from "../../http/presenters";
import { invitationRoutes } from "./invitations";
import { clientReviewRoutes } from "./client-review";
import { auditRoutes } from "./audit";
import { healthRoutes } from "./health";
import { ownAccountRoutes, sendData } from "./own-account";
import { asAdmin } from "../../http/acting";
import { cursorOf, readCursor } from "../../http/cursor";
import { emailField, labelField } from "../../http/fields";

export const presenter = jsonErrors;

const ADMIN = ADMIN_NEED;

const status = z.enum(["pending", "approved", "rejected"]);
const email = emailField;
const phone = z.string().regex(/^\+[1-9][0-9]{6,14}$/);
const label = labelField;
const unique = <T>(items: T[]) => [...new Set(items)];
const personIdParam = (req: Request) => String(req.params.personId);

export function routes(deps: Deps): Router {
  const router = Router();
  router.use(invitationRoutes(deps));
  router.use(clientReviewRoutes(deps));
  router.use(auditRoutes(deps));
  router.use(healthRoutes(deps));
  router.use(ownAccountRoutes(deps));

  const listQuery = z
    .object({
      email: email.optional(),
      q: z.string().trim().min(1).max(100).optional(),
      status: status.optional(),
      role: z.enum(["user", "admin"]).optional(),
      project: label.optional(),
      order: z.enum(["newest", "oldest"]).default("newest"),
      limit: z.coerce.number().int().min(1).max(500).default(100),
      cursor: z.string().max(1000).optional(),
    })
    .strict();
  router.get("/auth/people", async function people(req: Request, res: Response) {
    await requireAccess(deps, req, ADMIN);
    const query = listQuery.safeParse(req.query);
    ensure(
      query.success,
      "invalid_people_query",
      "Invalid query: email an address, q 1 to 100 characters, status pending, approved or rejected, role user or admin, order newest or oldest, limit 1 to 500",
    );
    const { q, cursor, ...rest } = query.data;
    const page = await findPeople(deps, { ...rest, search: q, after: readCursor(cursor, rest.order) });
    res.json({ people: page.people.map(adminView), next: cursorOf(page.next, rest.order) });
  });

  const queueQuery = z
    .object({ limit: z.coerce.number().int().min(1).max(100).default(25), cursor: z.string().max(1000).optional() })
    .strict();
  router.get("/auth/people/queue", async function queue(req: Request, res: Response) {
    await requireAccess(deps, req, ADMIN);
    const query = queueQuery.safeParse(req.query);
    ensure(query.success, "invalid_people_query", "Invalid query: limit 1 to 100, and a cursor this list gave");
    const page = await reviewQueue(deps, query.data.limit, readCursor(query.data.cursor, "queue"));
    res.json({ waiting: page.waiting, people: page.people.map(adminView), next: cursorOf(page.next, "queue") });
  });

  const reviewBody = z
    .object({
      personIds: z.array(z.string().min(1).max(200)).min(1).max(100).transform(unique),
      status: status.exclude(["pending"]),
    })
    .strict();
  router.post("/auth/people/review", async function review(req: Request, res: Response) {
    const admin = await requireAccess(deps, req, ADMIN);
    const { personIds, status: decision } = await parseBody(req, reviewBody, "invalid_person_change");
    const by = asAdmin(admin, req);
    const results = await reviewMany(deps, personIds, decision, by);
    res.json({
      results: results.map((r) =>
        "error" in r
          ? {
              personId: r.personId,
              error: r.detail ?? rowFor(r.error).message,
              reason: rowFor(r.error).reason ?? r.error,
            }
          : { personId: r.personId, person: adminView(r.person), providerSyncErrors: r.providerSyncErrors },
      ),
    });
  });

  router.get("/auth/people/:personId/apps", async function personApps(req: Request, res: Response) {
    await requireAccess(deps, req, ADMIN);
    const person = await findPerson(deps, personIdParam(req));
    res.setHeader("Cache-Control", "no-store");
    res.json({ apps: await appsOf(deps, person.id) });
  });
  router.delete(
    "/auth/people/:personId/apps/:clientId",
    async function disconnectPersonApp(req: Request, res: Response) {
      const admin = await requireAccess(deps, req, ADMIN);
      const person = await findPerson(deps, personIdParam(req));
      await disconnectApp(deps, person.id, String(req.params.clientId), asAdmin(admin, req));
      res.json({ disconnected: true });
    },
  );

  router.get("/auth/people/:personId", async function getPerson(req: Request, res: Response) {
    await requireAccess(deps, req, ADMIN);
    res.json(adminView(await findPerson(deps, personIdParam(req))));
  });

  const changeBody = z
    .object({
      status: status.optional(),
      role: z.enum(["user", "admin"]).optional(),
      projects: z.array(label).max(100).transform(unique).optional(),
      groups: z.array(label).max(100).transform(unique).optional(),
      name: z
        .string()
        .max(NAME_MAX * 4)
        .optional(),
      emails: z.array(email).max(20).transform(unique).optional(),
      phones: z.array(phone).max(20).transform(unique).optional(),
    })
    .strict()
    .refine((c) => Object.keys(c).length > 0);
  router.patch("/auth/people/:personId", async function patchPerson(req: Request, res: Response) {
    const admin = await requireAccess(deps, req, ADMIN);
    const change = await parseBody(req, changeBody, "invalid_person_change");
    const by = asAdmin(admin, req);
    const { person, providerSyncErrors } = await changePerson(deps, personIdParam(req), change, by);
    // Provider failures do not undo the change: they are listed for the admin to retry.
    res.json({ ...adminView(person), providerSyncErrors });
  });

  router.get("/auth/people/:personId/data", async function personData(req: Request, res: Response) {
    const admin = await requireAccess(deps, req, ADMIN);
    const by = asAdmin(admin, req);
    sendData(res, await exportPersonData(deps, personIdParam(req), by));
  });

  // Irreversible: an administrator's recent sign-in, as for a change that widens access.
  router.delete("/auth/people/:personId", async function erase(req: Request, res: Response) {
    const admin = await requireAccess(deps, req, ADMIN);
    const by = asAdmin(admin, req);
    const { finished, providerSyncErrors } = await erasePerson(deps, personIdParam(req), by);
    // An administrator who erased themself is signed out here, as the account page's deletion does.
    if (personIdParam(req) === admin.person.id) clearSessionCookie(res, deps.config.parentDomain);
    res.json({ erased: true, finished, providerSyncErrors });
  });

  const historyQuery = z
    .object({ limit: z.coerce.number().int().min(1).max(200).default(50), cursor: z.string().max(1000).optional() })
    .strict();
  router.get("/auth/people/:personId/history", async function history(req: Request, res: Response) {
    await requireAccess(deps, req, ADMIN);
    const query = historyQuery.safeParse(req.query);
    ensure(query.success, "invalid_people_query", "Invalid query: limit 1 to 200, and a cursor this list gave");
    const person = await findPerson(deps, personIdParam(req));
    const before = readCursor(query.data.cursor, "history");
    const page = await personHistory(deps, person.id, query.data.limit, before);
    res.json({ entries: page.entries.map(historyView), next: cursorOf(page.next, "history") });
  });

  router.get("/auth/people/:personId/sessions", async function personSessions(req: Request, res: Response) {
    const admin = await requireAccess(deps, req, ADMIN);
    const person = await findPerson(deps, personIdParam(req));
    res.json({ sessions: await listSessions(deps, person, admin.principal.sessionKey) });
  });

  // Ending someone's sessions only ever narrows access: no step-up.
  router.delete("/auth/people/:personId/sessions", async function endAll(req: Request, res: Response) {
    const admin = await requireAccess(deps, req, ADMIN);
    const by = asAdmin(admin, req);
    const { ended } = await endSessions(deps, personIdParam(req), { allBut: null }, by);
    res.json({ ended });
  });

  router.delete("/auth/people/:personId/sessions/:sessionId", async function endOne(req: Request, res: Response) {
    const admin = await requireAccess(deps, req, ADMIN);
    const by = asAdmin(admin, req);
    const sessionIds = [String(req.params.sessionId)];
    const { ended } = await endSessions(deps, personIdParam(req), { sessionIds }, by);
    res.json({ ended });
  });

  // A person's passkeys, for an administrator: to see a suspect one, and to take them away
  // (a lost or stolen device); the person then signs in by email code and adds new ones.
  router.get("/auth/people/:personId/passkeys", async function personPasskeys(req: Request, res: Response) {
    await requireAccess(deps, req, ADMIN);
    const person = await findPerson(deps, personIdParam(req));
    res.json({ passkeys: (await listPasskeys(deps, person.id)).map(passkeyView) });
  });

  router.delete("/auth/people/:personId/passkeys", async function removePersonPasskeys(req: Request, res: Response) {
    const admin = await requireAccess(deps, req, ADMIN);
    const person = await findPerson(deps, personIdParam(req));
    const by = asAdmin(admin, req);
    res.json({ removed: await removeAllPasskeys(deps, person.id, by) });
  });

  router.delete(
    "/auth/people/:personId/passkeys/:passkeyId",
    async function removePersonPasskey(req: Request, res: Response) {
      const admin = await requireAccess(deps, req, ADMIN);
      const person = await findPerson(deps, personIdParam(req));
      const by = asAdmin(admin, req);
      await removePasskey(deps, person.id, String(req.params.passkeyId), by);
      res.json({ removed: 1 });
    },
  );

  return router;
}
