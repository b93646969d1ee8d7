import { Router, type Request, type Response } from "express";
import { asSelf } from "../../http/acting";
import { z } from "zod";
import { signInWithCode } from "../../core/email-codes/code-sign-in";
import { PURPOSES } from "../../core/email-codes/rules";
import { requestCode, verifyCode } from "../../core/email-codes/email-codes";
import { ensure } from "../../core/errors";
import type { Deps } from "../../core/deps";
import {
  confirmAddress,
  makePrimaryAddress,
  ownAddresses,
  removeOwnAddress,
  requestAddressCode,
} from "../../core/account/addresses";
import { parseBody, readJson } from "../../http/body";
import { callerOf } from "../../http/caller";
import { requireAccess } from "../../http/gate";
import { checkErrors, jsonErrors, presentWith } from "../../http/presenters";

export const presenter = jsonErrors;

const purpose = z.enum(PURPOSES).default("signin");
const email = z.string().min(1).max(1024);
const otp = z.string().min(1).max(64);

export function routes(deps: Deps): Router {
  const router = Router();

  // Strict: a field the endpoint does not take is refused (unknown_field), not ignored.
  const sendBody = z.object({ email, purpose: z.unknown().optional() }).strict();
  router.post("/auth/otp/send", async function sendCode(req: Request, res: Response) {
    const { email: address } = await parseBody(req, sendBody, "email_invalid");
    const chosen = purpose.safeParse((await readJson(req)).purpose);
    ensure(chosen.success, "email_code_purpose_invalid");
    await requestCode(deps, address, chosen.data, callerOf(req, deps.config.clientAddressHops));
    // Also the answer for a sign-in code to an address on no account (no mail goes): the same
    // status, body, headers, limits and timing, so the answer never tells who has an account.
    // The mail itself leaves through the outbox, so no answer waits on the mail server.
    res.json({ ok: true });
  });

  // A request for access may carry a name and a note for the reviewer (checked and cleaned in core).
  const details = z.unknown().optional();
  const verifyBody = z.object({ email, otp, purpose, name: details, note: details }).strict();
  router.post("/auth/otp/verify", presentWith(checkErrors), async function verify(req: Request, res: Response) {
    const { name, note, ...input } = await parseBody(req, verifyBody, "email_code_fields_required");
    await verifyCode(deps, input.email, input.otp, input.purpose, { name, note });
    res.json({ valid: true });
  });

  // `purpose` is taken and ignored: a sign-in code is always `signin` (a request-access one never matches).
  const signInBody = z.object({ email, otp, purpose: z.unknown().optional() }).strict();
  router.post("/auth/otp/sign-in", async function signIn(req: Request, res: Response) {
    const input = await parseBody(req, signInBody, "signin_fields_required");
    res.json({ customToken: await signInWithCode(deps, input.email, input.otp) });
  });

  addressRoutes(deps, router);
  return router;
}

/** The signed-in person's own account: their session cookie, no project or role needed. */
const SELF = { cookieOnly: true } as const;

/**
 * A person's own addresses, from the account page (core/account/addresses). Served here, beside
 * the codes they are proved with: this function holds CODE_PEPPER, and the people function does not.
 */
function addressRoutes(deps: Deps, router: Router): void {
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
    // This browser signed in through an account of that address, which went with it: so did its
    // session, and the page is told so rather than finding out at its next call.
    res.json({ emails: person.emails, ...(person.uids.includes(access.uid) ? {} : { signedOut: true }) });
  });
}
