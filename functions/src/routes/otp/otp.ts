/**
 * The otp group: the email codes of the sign-in page (`/auth/otp/*`: sending one, checking it,
 * signing in with it), and mounted beside them the person's own addresses (own-addresses.ts),
 * which are proved by the same codes.
 */
import { Router, type Request, type Response } from "express";
import { z } from "zod";
import { signInWithCode } from "../../core/email-codes/code-sign-in";
import { PURPOSES } from "../../core/email-codes/rules";
import { requestCode, verifyCode } from "../../core/email-codes/email-codes";
import { ensure } from "../../core/errors";
import type { Deps } from "../../core/deps";
import { parseBody, readJson } from "../../http/body";
import { callerOf } from "../../http/caller";
import { checkErrors, jsonErrors, presentWith, refusalsCounted } from "../../http/presenters";
import { ownAddressRoutes } from "./own-addresses";

export const presenter = jsonErrors;

const purpose = z.enum(PURPOSES).default("signin");
const email = z.string().min(1).max(1024);
const otp = z.string().min(1).max(64);

export function routes(deps: Deps): Router {
  const router = Router();

  // Strict: a field the endpoint does not take is refused (unknown_field), not ignored.
  const sendBody = z.object({ email, purpose: z.unknown().optional() }).strict();
  router.post(
    "/auth/otp/send",
    refusalsCounted(deps.counts, "codes"),
    async function sendCode(req: Request, res: Response) {
      const { email: address } = await parseBody(req, sendBody, "email_invalid");
      const chosen = purpose.safeParse((await readJson(req)).purpose);
      ensure(chosen.success, "email_code_purpose_invalid");
      await requestCode(deps, address, chosen.data, callerOf(req, deps.config.clientAddressHops));
      // Also the answer for a sign-in code to an address on no account (no mail goes): the same
      // status, body, headers, limits and timing, so the answer never tells who has an account.
      // The mail itself leaves through the outbox, so no answer waits on the mail server.
      res.json({ ok: true });
    },
  );

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
  router.post(
    "/auth/otp/sign-in",
    refusalsCounted(deps.counts, "signIns"),
    async function signIn(req: Request, res: Response) {
      const input = await parseBody(req, signInBody, "signin_fields_required");
      res.json({ customToken: await signInWithCode(deps, input.email, input.otp) });
    },
  );

  router.use(ownAddressRoutes(deps));
  return router;
}
