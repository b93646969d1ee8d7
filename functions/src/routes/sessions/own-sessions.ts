/**
 * The signed-in person's own sessions, for themself (served by the sessions group): each browser
 * signed in as them, which they can end from their account page, and their choice of notices.
 */
import { Router, type Request, type Response } from "express";
import { z } from "zod";
import { browserOf } from "../../http/acting";
import { ensureAccess } from "../../core/people/access";
import { chooseNewBrowserNotices, noticeChoices } from "../../core/account/notices";
import { ensure } from "../../core/errors";
import { endSessions, listSessions } from "../../core/sessions/active-sessions";
import type { Deps } from "../../core/deps";
import { parseBody } from "../../http/body";
import { clearSessionCookie } from "../../http/cookies";
import { cookieSession } from "../../http/gate";

export function ownSessionRoutes(deps: Deps): Router {
  const router = Router();

  /** The approved person this browser's session cookie speaks for (not a bearer token: sessions are cookies). */
  async function signedInPerson(req: Request) {
    const { principal, person } = await cookieSession(deps, req);
    ensure(principal && person, "unauthorized");
    ensureAccess(person, {}, "gate");
    return { principal, person };
  }

  // The signed-in person's choice of notices: only those of sign-ins from new browsers can be
  // turned off (core/account/notices). A foreign page cannot change it: the origin rule
  // (http/cors) refuses its PATCH before this runs.
  router.get("/auth/session/notices", async function ownNotices(req: Request, res: Response) {
    const { person } = await signedInPerson(req);
    res.json(await noticeChoices(deps, person.id));
  });

  const noticesBody = z.object({ newBrowser: z.boolean() }).strict();
  router.patch("/auth/session/notices", async function chooseNotices(req: Request, res: Response) {
    const { principal, person } = await signedInPerson(req);
    const { newBrowser } = await parseBody(req, noticesBody, "notice_choice_invalid");
    // Off silences what would tell of a stolen session: the core asks a recent sign-in first.
    const by = { self: person, signedInAt: principal.authTime, amr: principal.amr, from: browserOf(req) };
    await chooseNewBrowserNotices(deps, by, newBrowser);
    res.json({ newBrowser });
  });

  // A person's own sessions: each browser signed in as them, which they can end from here.
  router.get("/auth/sessions", async function ownSessions(req: Request, res: Response) {
    const { person, principal } = await signedInPerson(req);
    res.json({ sessions: await listSessions(deps, person, principal.sessionKey) });
  });

  router.delete("/auth/sessions/:sessionId", async function endOwnSession(req: Request, res: Response) {
    const { person, principal } = await signedInPerson(req);
    const sessionId = String(req.params.sessionId);
    const { ended } = await endSessions(deps, person.id, { sessionIds: [sessionId] });
    // Ending this browser's own session is signing out here.
    if (sessionId === principal.sessionKey) clearSessionCookie(res, deps.config.parentDomain);
    res.json({ ended });
  });

  router.post("/auth/sessions/end-others", async function endOtherSessions(req: Request, res: Response) {
    const { person, principal } = await signedInPerson(req);
    const { ended } = await endSessions(deps, person.id, { allBut: principal.sessionKey });
    res.json({ ended });
  });

  return router;
}
