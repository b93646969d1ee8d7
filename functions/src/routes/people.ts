import { Router, type Request, type Response } from "express";
import { z } from "zod";
import { canonicalEmail } from "../core/email-address";
import { changePerson, findPerson, listPeople, type Person } from "../core/people/people-admin";
import { listPasskeys, passkeyView, removeAllPasskeys, removePasskey } from "../core/passkeys/passkeys";
import { ensure } from "../core/errors";
import type { Deps } from "../core/deps";
import { parseBody } from "../http/body";
import { requireAccess } from "../http/gate";
import { jsonErrors } from "../http/presenters";

export const presenter = jsonErrors;

const ADMIN = { admin: true, cookieOnly: true } as const;

/** A person as administrators see it: the interface's fields plus every linked account. */
export function adminView(person: Person) {
  return {
    personId: person.id,
    uid: person.uids[0] ?? null,
    uids: person.uids,
    email: person.emails[0] ?? null,
    emails: person.emails,
    phones: person.phones,
    name: person.name,
    role: person.role,
    projects: person.projects,
    groups: person.groups,
    status: person.status,
    createdAt: person.createdAt.toISOString(),
    updatedAt: person.updatedAt.toISOString(),
  };
}

const status = z.enum(["pending", "approved", "rejected"]);
const email = z
  .string()
  .transform(
    (raw, ctx) => canonicalEmail(raw) ?? (ctx.addIssue({ code: "custom", message: "invalid email" }), z.NEVER),
  );
const phone = z.string().regex(/^\+[1-9][0-9]{6,14}$/);
const label = z.string().trim().min(1).max(100);
const unique = <T>(items: T[]) => [...new Set(items)];

export function routes(deps: Deps): Router {
  const router = Router();

  const listQuery = z.object({
    email: email.optional(),
    status: status.optional(),
    limit: z.coerce.number().int().min(1).max(500).default(100),
  });
  router.get("/auth/people", async function people(req: Request, res: Response) {
    await requireAccess(deps, req, ADMIN);
    const query = listQuery.safeParse(req.query);
    ensure(
      query.success,
      "invalid_person_change",
      "Invalid query: email must be an address, status one of pending, approved, rejected",
    );
    const { limit, ...filter } = query.data;
    const found = await listPeople(deps, filter, limit);
    res.json({ people: found.map(adminView) });
  });

  router.get("/auth/people/:personId", async function getPerson(req: Request, res: Response) {
    await requireAccess(deps, req, ADMIN);
    res.json(adminView(await findPerson(deps, String(req.params.personId))));
  });

  const changeBody = z
    .object({
      status: status.optional(),
      role: z.enum(["user", "admin"]).optional(),
      projects: z.array(label).max(100).transform(unique).optional(),
      groups: z.array(label).max(100).transform(unique).optional(),
      name: z.string().trim().max(200).optional(),
      emails: z.array(email).max(20).transform(unique).optional(),
      phones: z.array(phone).max(20).transform(unique).optional(),
    })
    .strict()
    .refine((c) => Object.keys(c).length > 0);
  router.patch("/auth/people/:personId", async function patchPerson(req: Request, res: Response) {
    await requireAccess(deps, req, ADMIN);
    const change = await parseBody(req, changeBody, "invalid_person_change");
    const { person, providerSyncErrors } = await changePerson(deps, String(req.params.personId), change);
    // Provider failures do not undo the change: they are listed for the admin to retry.
    res.json({ ...adminView(person), providerSyncErrors });
  });

  // A person's passkeys, for an administrator: to see a suspect one, and to take them away
  // (a lost or stolen device); the person then signs in by email code and adds new ones.
  router.get("/auth/people/:personId/passkeys", async function personPasskeys(req: Request, res: Response) {
    await requireAccess(deps, req, ADMIN);
    const person = await findPerson(deps, String(req.params.personId));
    res.json({ passkeys: (await listPasskeys(deps, person.id)).map(passkeyView) });
  });

  router.delete("/auth/people/:personId/passkeys", async function removePersonPasskeys(req: Request, res: Response) {
    await requireAccess(deps, req, ADMIN);
    const person = await findPerson(deps, String(req.params.personId));
    res.json({ removed: await removeAllPasskeys(deps, person.id) });
  });

  router.delete(
    "/auth/people/:personId/passkeys/:passkeyId",
    async function removePersonPasskey(req: Request, res: Response) {
      await requireAccess(deps, req, ADMIN);
      const person = await findPerson(deps, String(req.params.personId));
      await removePasskey(deps, person.id, String(req.params.passkeyId));
      res.json({ removed: 1 });
    },
  );

  return router;
}
