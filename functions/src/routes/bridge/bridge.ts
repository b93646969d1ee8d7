import { Router, type Request, type Response } from "express";
import { browserOf } from "../../http/acting";
import {
  BRIDGE_STATE_LIFETIME_MS,
  completeBridge,
  ensurePendingState,
  listBridges,
  startBridge,
} from "../../core/bridges/bridges";
import { AppError } from "../../core/errors";
import { constantTimeEqual } from "../../core/secrets";
import type { Deps } from "../../core/deps";
import { readForm } from "../../http/body";
import { clearBridgeStateCookie, readBridgeStates, setBridgeStateCookie } from "../../http/cookies";
import { requestHost } from "../../http/caller";
import { htmlErrors } from "../../http/presenters";
import { requestBudget } from "../../http/app";

/** Bridge pages are where a browser lands, so every refusal is an HTML page, whatever it asked for. */
export const presenter = htmlErrors;

/** One value per parameter: a repeated one is ambiguous, and refused. */
function single(value: unknown, code: "bridge_redirect_not_allowed" | "bridge_idp_invalid"): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string") throw new AppError(code);
  return value;
}

export function routes(deps: Deps): Router {
  const router = Router();
  const { config } = deps;

  router.get("/auth/bridge/", function bridges(_req: Request, res: Response) {
    res.json({ providers: listBridges(config) });
  });

  router.get("/auth/bridge/:provider/start", async function start(req: Request, res: Response) {
    const provider = String(req.params.provider);
    const redirect = single(req.query.redirect, "bridge_redirect_not_allowed");
    // `idp` selects a provider behind the `federated` bridge; a repeated one is refused here too.
    const idp = single(req.query.idp, "bridge_idp_invalid");
    const started = await startBridge(deps, provider, { redirect, idp, startedOn: requestHost(req) });
    // Sign-ins started in other tabs stay pending beside this one.
    setBridgeStateCookie(res, config.parentDomain, [started.state, ...readBridgeStates(req)], BRIDGE_STATE_LIFETIME_MS);
    res.redirect(302, started.location);
  });

  router.get("/auth/bridge/:provider/callback", async function callback(req: Request, res: Response) {
    const provider = String(req.params.provider);
    // Whatever happens next, the state this callback brought back has had its one use here;
    // other tabs' pending states stay.
    const pending = readBridgeStates(req);
    const presented = typeof req.query.state === "string" ? req.query.state : "";
    const rest = pending.filter((s) => !constantTimeEqual(s, presented));
    if (rest.length === 0 && pending.length > 0) clearBridgeStateCookie(res, config.parentDomain);
    else if (rest.length < pending.length)
      setBridgeStateCookie(res, config.parentDomain, rest, BRIDGE_STATE_LIFETIME_MS);
    res.redirect(302, await completeBridge(deps, provider, req.query, pending, browserOf(req), requestBudget(res)));
  });

  /**
   * A provider answering by form_post (response_mode=form_post) POSTs its answer here from its
   * own site. That cross-site POST carries no SameSite=Lax cookie, so the state cannot be matched
   * to this browser here: the answer is passed on by a 303 to the GET callback on this same
   * origin, a top-level GET navigation, which does carry the cookie and then checks and uses the
   * state (once, in a transaction) and redeems the code exactly as for a provider answering by
   * query. A POST whose state is not pending is refused here, as the GET would refuse it. Only
   * the fields the bridge reads go on: the first sign-in's `user` field (a name, an address) is
   * never put into an address; its name is kept with the state instead. The code does ride in
   * that one redirect: it is single-use and worth nothing without our client secret and this
   * sign-in's PKCE verifier.
   */
  router.post("/auth/bridge/:provider/callback", async function formPostCallback(req: Request, res: Response) {
    const provider = String(req.params.provider);
    const form = await readForm(req);
    await ensurePendingState(deps, provider, form.state, form.user, requestBudget(res));
    const next = new URLSearchParams();
    for (const name of ["state", "code", "iss", "error"]) {
      const value = form[name];
      if (value !== undefined) next.set(name, value);
    }
    res.redirect(303, `/auth/bridge/${encodeURIComponent(provider)}/callback?${next.toString()}`);
  });

  return router;
}
