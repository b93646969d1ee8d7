/**
 * The signed-in person's own account, for themself (served by the people group): their name,
 * their copy of their data, the apps they let in and the accounts at the identity provider that
 * sign in as them, and its erasure. Their addresses are the otp group's (routes/otp/own-addresses),
 * beside the codes that prove them; their sessions, the sessions group's.
 */
import { Router, type Request, type Response } from "express";
import { z } from "zod";
import { NAME_MAX } from "../../core/people/acting";
import { exportPersonData, renameSelf, type PersonData } from "../../core/account/own-data";
import { erasePerson } from "../../core/account/erasure";
import { appsOf, disconnectApp } from "../../core/oidc/apps";
import { personView } from "../../core/people/person-view";
import type { Deps } from "../../core/deps";
import { parseBody } from "../../http/body";
import { requireAccess } from "../../http/gate";
import { clearSessionCookie } from "../../http/cookies";
import { asSelf } from "../../http/acting";
import { ownAccounts, unlinkOwnAccount } from "../../core/account/linked-accounts";

/** The signed-in person's own account: their session cookie, no project or role needed. */
const SELF = { cookieOnly: true } as const;

/** A person's copy of their data, as a file the browser saves (theirs, or an administrator's of it). */
export function sendData(res: Response, data: PersonData): void {
  const day = data.exportedAt.slice(0, 10);
  res.setHeader("Content-Disposition", `attachment; filename="account-data-${day}.json"`);
  res.setHeader("Cache-Control", "no-store");
  res.type("application/json").send(JSON.stringify(data, null, 2));
}

export function ownAccountRoutes(deps: Deps): Router {
  const router = Router();

  const renameBody = z.object({ name: z.string().max(NAME_MAX * 4) }).strict();
  router.patch("/auth/account", async function renameOwn(req: Request, res: Response) {
    const { person, principal, uid } = await requireAccess(deps, req, SELF);
    const { name } = await parseBody(req, renameBody, "invalid_person_change");
    res.json(personView(await renameSelf(deps, { self: person, signedInAt: principal.authTime }, name), uid));
  });

  router.get("/auth/account/data", async function ownData(req: Request, res: Response) {
    const { person, principal } = await requireAccess(deps, req, SELF);
    sendData(res, await exportPersonData(deps, person.id, { self: person, signedInAt: principal.authTime }));
  });

  // The apps the person let in through the OpenID Connect provider, and letting one go.
  router.get("/auth/account/apps", async function ownApps(req: Request, res: Response) {
    const { person } = await requireAccess(deps, req, SELF);
    res.setHeader("Cache-Control", "no-store");
    res.json({ apps: await appsOf(deps, person.id) });
  });
  router.delete("/auth/account/apps/:clientId", async function disconnectOwnApp(req: Request, res: Response) {
    const { person, principal } = await requireAccess(deps, req, SELF);
    const by = { self: person, signedInAt: principal.authTime };
    await disconnectApp(deps, person.id, String(req.params.clientId), by);
    res.json({ disconnected: true });
  });

  // The accounts at the identity provider that sign in as the person, and unlinking one.
  router.get("/auth/account/accounts", async function ownProviderAccounts(req: Request, res: Response) {
    const access = await requireAccess(deps, req, SELF);
    res.setHeader("Cache-Control", "no-store");
    res.json({ accounts: await ownAccounts(deps, asSelf(access, req), access.uid) });
  });
  router.delete("/auth/account/accounts/:accountId", async function unlinkOwn(req: Request, res: Response) {
    const access = await requireAccess(deps, req, SELF);
    const after = await unlinkOwnAccount(deps, asSelf(access, req), String(req.params.accountId));
    // The account this browser signed in through: its session went with it.
    res.json({ unlinked: true, ...(after.uids.includes(access.uid) ? {} : { signedOut: true }) });
  });

  router.delete("/auth/account", async function eraseOwn(req: Request, res: Response) {
    const { person, principal } = await requireAccess(deps, req, SELF);
    const { finished, providerSyncErrors } = await erasePerson(deps, person.id, {
      self: person,
      signedInAt: principal.authTime,
    });
    clearSessionCookie(res, deps.config.parentDomain);
    res.json({ erased: true, finished, providerSyncErrors });
  });

  return router;
}
