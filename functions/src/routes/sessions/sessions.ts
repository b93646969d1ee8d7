/**
 * The sessions group: a browser's session with the apps of the parent domain (opened from an ID
 * token, refreshed, ended, its projects noted), the exchange and the hand-off to an app; and,
 * mounted beside them, the person's own sessions and notices (own-sessions.ts).
 */
import { Router, type Request, type Response } from "express";
import { z } from "zod";
import { ensureAccess } from "../../core/people/access";
import { personView } from "../../core/people/person-view";
import { ensure } from "../../core/errors";
import { redeemExchangeCode } from "../../core/sessions/exchange-codes";
import { checkHandoff, findHandoffTarget, handOff } from "../../core/sessions/handoff";
import { isCodeVerifier } from "../../core/pkce";
import { endSession, openSession, recordProjectAccess } from "../../core/sessions/sessions";
import { noteSeen } from "../../core/sessions/active-sessions";
import type { Deps } from "../../core/deps";
import { parseBody } from "../../http/body";
import { BROWSER_ID, clearSessionCookie, readBrowserId, readSessionCookie, setSessionCookie } from "../../http/cookies";
import { callerOf } from "../../http/caller";
import { cookieSession, unavailableGuard } from "../../http/gate";
import { jsonErrors, refusalsCounted } from "../../http/presenters";
import { ownSessionRoutes } from "./own-sessions";

export const presenter = jsonErrors;

const projectName = z.string().trim().min(1).max(100);

export function routes(deps: Deps): Router {
  const router = Router();
  router.use(ownSessionRoutes(deps));

  // Strict, as every JSON body: a field the endpoint does not take is refused (unknown_field), never ignored.
  // `browser`: the identifier the identity host's page keeps for this browser (not the contract's;
  // docs/endpoints/sessions.md), so that one answer sets one cookie, the session.
  const verifyBody = z
    .object({
      idToken: z.string().min(1).max(8192),
      project: projectName,
      browser: z.string().regex(BROWSER_ID).optional(),
    })
    .strict();
  router.post(
    "/auth/verify",
    refusalsCounted(deps.counts, "signIns"),
    async function verify(req: Request, res: Response) {
      const { idToken, project, browser } = await parseBody(req, verifyBody, "verify_fields_required");
      const outcome = await openSession(deps, idToken, project, {
        ids: [browser, readBrowserId(req)].filter((id): id is string => id !== undefined && id !== null),
        userAgent: req.get("user-agent") ?? "",
        network: callerOf(req, deps.config.clientAddressHops).network,
      });
      // Refusals are success-shaped by contract: callers test `approved`, not the status.
      if (!outcome.approved) return void res.json({ approved: false, reason: outcome.reason });
      setSessionCookie(res, deps.config.parentDomain, outcome);
      res.json({ approved: true, ...personView(outcome.person, outcome.uid) });
    },
  );

  router.post("/auth/session/refresh", async function refresh(req: Request, res: Response) {
    const { principal, person } = await cookieSession(deps, req);
    // "Not signed in" is the answer a status probe exists to give; the cookie is never touched.
    if (principal === null || person === null || person.status !== "approved")
      return void res.status(401).json({ authenticated: false });
    const view = personView(person, principal.uid);
    await noteSeen(deps, principal);
    if (view.email !== null) res.setHeader("X-Remote-User", view.email);
    res.json({ authenticated: true, ...view });
  });

  // Ends the session this browser holds, server-side, so a copy of the cookie is worthless too;
  // sessions in other browsers go on. With no cookie (or one that no longer verifies) there is
  // nothing to end and the answer is ok. If the end cannot be recorded, 503 and the cookie is
  // kept, so the browser can try again rather than believe it signed out. A foreign page cannot
  // sign anyone out: the origin rule (http/cors) refuses its POST before this runs.
  router.post("/auth/logout", async function logout(req: Request, res: Response) {
    for (const cookie of readSessionCookie(req).all) await endSession(deps, cookie, unavailableGuard(deps));
    clearSessionCookie(res, deps.config.parentDomain);
    res.json({ ok: true });
  });

  const projectAccessBody = z.object({ project: projectName }).strict();
  router.post("/auth/project-access", async function projectAccess(req: Request, res: Response) {
    const cookie = readSessionCookie(req);
    ensure(cookie.value !== null || cookie.several, "missing_params");
    const { project } = await parseBody(req, projectAccessBody, "missing_params");
    const { person } = await cookieSession(deps, req);
    ensure(person, "unauthorized");
    await recordProjectAccess(deps, person.id, project);
    res.json({ ok: true });
  });

  // A hand-off's code comes with the PKCE verifier of the app that asked for it.
  const exchangeBody = z.object({ code: z.string().min(1).max(512), code_verifier: z.unknown().optional() }).strict();
  router.post("/auth/exchange", async function exchange(req: Request, res: Response) {
    const { code, code_verifier: verifier } = await parseBody(req, exchangeBody, "code_required");
    ensure(
      verifier === undefined || (typeof verifier === "string" && isCodeVerifier(verifier)),
      "exchange_verifier_invalid",
    );
    const { person, uid } = await redeemExchangeCode(deps, code, verifier ?? null);
    const { groups: _groups, ...view } = personView(person, uid);
    res.json(view);
  });

  // Public: names the app a hand-off would go to, so the page can ask the person before it does.
  const handoffQuery = z.object({ app: z.string().min(1).max(64), redirect_uri: z.string().min(1).max(512) });
  router.get("/auth/handoff", function describeHandoff(req: Request, res: Response) {
    const query = handoffQuery.safeParse(req.query);
    ensure(query.success, "handoff_fields_required");
    const { app, redirectUri } = findHandoffTarget(deps.config, query.data.app, query.data.redirect_uri);
    res.json({ app: { id: app.id, name: app.name }, redirectUri });
  });

  const handoffBody = z
    .object({
      app: z.string().min(1).max(64),
      redirect_uri: z.string().min(1).max(512),
      state: z.string().max(512).optional(),
      code_challenge: z.string().max(128).optional(),
      code_challenge_method: z.string().max(16).optional(),
    })
    .strict();
  router.post("/auth/handoff", async function handoff(req: Request, res: Response) {
    const body = await parseBody(req, handoffBody, "handoff_fields_required");
    const request = checkHandoff(deps.config, {
      app: body.app,
      redirectUri: body.redirect_uri,
      state: body.state,
      codeChallenge: body.code_challenge,
      codeChallengeMethod: body.code_challenge_method,
    });
    const { principal, person } = await cookieSession(deps, req);
    ensure(principal && person, "unauthorized");
    ensureAccess(person, {}, "gate");
    res.json({ location: await handOff(deps, request, person, principal.uid) });
  });

  return router;
}
