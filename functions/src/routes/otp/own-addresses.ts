import { Router, type Request, type Response } from "express";
import { z } from "zod";
import { asSelf } from "../../http/acting";
import type { Deps } from "../../core/deps";
import {
  confirmAddress,
  makePrimaryAddress,
  ownAddresses,
  removeOwnAddress,
  requestAddressCode,
} from "../../core/account/addresses";
import { parseBody } from "../../http/body";
import { callerOf } from "../../http/caller";
import { requireAccess } from "../../http/gate";
import { signInEnded } from "../../core/sessions/sessions";

/** An address and a code as the group's code endpoints take them too (otp.ts): checked in core. */
const email = z.string().min(1).max(1024);
const otp = z.string().min(1).max(64);

/** The signed-in person's own account: their session cookie, no project or role needed. */
const SELF = { cookieOnly: true } as const;

/**
 * A person's own addresses, from the account page (core/account/addresses). Served here, beside
 * the codes they are proved with: this function holds CODE_PEPPER, and the people function does not.
 */
export function ownAddressRoutes(deps: Deps): Router {
  const router = Router();
  /** The person acting for themself, signed in when, from the browser of this request (their notice names it). */
  const self = async (req: Request) => asSelf(await requireAccess(deps, req, SELF), req);

  router.get("/auth/account/addresses", async function listOwnAddresses(req: Request, res: Response) {
    const by = await self(req);
    res.json({ emails: await ownAddresses(deps, by) });
  });

  const addBody = z.object({ email }).strict();
  router.post("/auth/account/addresses", async function addAddress(req: Request, res: Response) {
    const by = await self(req);
    const input = await parseBody(req, addBody, "email_invalid");
    await requestAddressCode(deps, by, input.email, callerOf(req, deps.config.clientAddressHops));
    // Also the answer for an address another person holds (no code is mailed): the same status,
    // body, limits and writes, so the answer never tells who holds an address.
    res.json({ ok: true });
  });

  const confirmBody = z.object({ email, otp }).strict();
  router.post("/auth/account/addresses/verify", async function confirmOwnAddress(req: Request, res: Response) {
    const by = await self(req);
    const input = await parseBody(req, confirmBody, "address_fields_required");
    res.json({ emails: await confirmAddress(deps, by, input.email, input.otp) });
  });

  const primaryBody = z.object({ email }).strict();
  router.post("/auth/account/addresses/primary", async function makePrimary(req: Request, res: Response) {
    const by = await self(req);
    const input = await parseBody(req, primaryBody, "email_invalid");
    res.json({ emails: await makePrimaryAddress(deps, by, input.email) });
  });

  router.delete("/auth/account/addresses/:email", async function removeAddress(req: Request, res: Response) {
    const access = await requireAccess(deps, req, SELF);
    const person = await removeOwnAddress(deps, asSelf(access, req), String(req.params.email));
    // This browser signed in through that address (an account of it, or a passkey added through
    // it), which went with it: so did its session, and the page is told so rather than finding
    // out at its next call.
    const gone = !person.uids.includes(access.uid) || signInEnded(person, access.principal);
    res.json({ emails: person.emails, ...(gone ? { signedOut: true } : {}) });
  });

  return router;
}
