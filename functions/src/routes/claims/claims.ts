import { Router, type Request, type Response } from "express";
import { z } from "zod";
import { claimsFor, signatureSecrets, verifyIdpSignature } from "../../core/claims/idp-claims";
import type { Deps } from "../../core/deps";
import { checkBody, parseJsonBody, rawBody } from "../../http/body";
import { jsonErrors } from "../../http/presenters";

export const presenter = jsonErrors;

// Strict: the body is signed by the provider, so a field we do not know means the two ends disagree.
const claimsBody = z
  .object({
    uid: z.string().min(1).max(128),
    email: z.string().max(320).optional(),
    emailVerified: z.boolean().optional(),
  })
  .strict();

export function routes(deps: Deps): Router {
  const router = Router();
  const secrets = signatureSecrets(deps.config.idpSigningSecret);

  // The identity provider asks, before it issues an ID token, which claims of ours go in it.
  router.post("/auth/idp/claims", async function idpClaims(req: Request, res: Response) {
    const raw = await rawBody(req);
    // Nothing of the request is read or parsed until its signature holds.
    verifyIdpSignature(secrets, req.get("idp-signature"), raw, deps.clock.now());
    const body = checkBody(parseJsonBody(req, raw), claimsBody, "idp_claims_fields");
    res.json({ claims: await claimsFor(deps, deps.config.claimNamespace, body) });
  });

  return router;
}
