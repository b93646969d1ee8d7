/**
 * Who acts through a request, as core/people/acting names them, and the browser they act from
 * (the person's notice names it): one reading of the request for every group.
 */
import type { Request } from "express";
import type { Acting, AdminActing } from "../core/people/acting";
import type { Person } from "../core/model/person";
import { nameUserAgent } from "../core/sessions/user-agent";
import type { requireAccess } from "./gate";

type Access = Awaited<ReturnType<typeof requireAccess>>;

/** The browser and system the request came from, in words. */
export const browserOf = (req: Request): string => nameUserAgent(req.get("user-agent") ?? "");

/** An administrator acting through the API, signed in when and how, from the browser of this request. */
export const asAdmin = (admin: Access, req: Request): AdminActing => ({
  admin: admin.person,
  signedInAt: admin.principal.authTime,
  amr: admin.principal.amr,
  from: browserOf(req),
});

/** The person acting for themself, signed in when and how, from the browser of this request. */
export const asSelf = (access: Access, req: Request): Extract<Acting, { self: Person }> => ({
  self: access.person,
  signedInAt: access.principal.authTime,
  amr: access.principal.amr,
  from: browserOf(req),
});
