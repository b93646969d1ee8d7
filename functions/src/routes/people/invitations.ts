/**
 * Invitations, for administrators (served by the people group): inviting one address, a file of
 * them, listing, sending again and revoking (core/invitations).
 */
import { Router, type Request, type Response } from "express";
import { z } from "zod";
import type { Deps } from "../../core/deps";
import { AppError, ensure } from "../../core/errors";
import { parseBody, readText } from "../../http/body";
import { ADMIN_NEED, requireAccess } from "../../http/gate";
import { asAdmin } from "../../http/acting";
import { cursorOf, readCursor } from "../../http/cursor";
import { emailField, labelField } from "../../http/fields";
import type { ActingOnOthers } from "../../core/people/acting";
import { INVITATION_MAX_DAYS, INVITATION_NOTE_MAX } from "../../core/model/invitation";
import { invitationView } from "../../core/invitations/invitation-view";
import { NAME_MAX } from "../../core/model/person";
import {
  findInvitation,
  invite,
  listInvitations,
  resendInvitation,
  revokeInvitation,
} from "../../core/invitations/invitations";
import { readInvitationFile, type FileProblem } from "../../core/invitations/invitation-file";
import { inviteMany } from "../../core/invitations/invite-many";

const ADMIN = ADMIN_NEED;
/** A file of invitations: 5,000 rows of a long address, name, lists and note fit. */
const FILE_LIMIT_BYTES = 2 * 1024 * 1024;
/** The list a cursor of GET /auth/invitations belongs to (http/cursor). */
const LIST = "invitations";

/** A file's problems in one message, line by line (the first 20, then how many more). */
function problemsText(problems: FileProblem[]): string {
  const shown = problems.slice(0, 20).map((p) => `line ${p.line}: ${p.error}`);
  const more = problems.length > shown.length ? `; and ${problems.length - shown.length} more` : "";
  return `Nobody was invited; fix these rows and send the file again: ${shown.join("; ")}${more}`;
}

const days = z.number().int().min(1).max(INVITATION_MAX_DAYS);

export function invitationRoutes(deps: Deps): Router {
  const router = Router();
  const admin = async (req: Request): Promise<ActingOnOthers> => asAdmin(await requireAccess(deps, req, ADMIN), req);
  const idParam = (req: Request) => String(req.params.invitationId);

  const listQuery = z
    .object({ limit: z.coerce.number().int().min(1).max(200).default(50), cursor: z.string().max(200).optional() })
    .strict();
  router.get("/auth/invitations", async function list(req: Request, res: Response) {
    await requireAccess(deps, req, ADMIN);
    const query = listQuery.safeParse(req.query);
    ensure(query.success, "invalid_people_query", "Invalid query: limit 1 to 200, and a cursor this list gave");
    const page = await listInvitations(deps, query.data.limit, readCursor(query.data.cursor, LIST));
    const now = deps.clock.now();
    res.setHeader("Cache-Control", "no-store");
    res.json({ invitations: page.invitations.map((i) => invitationView(i, now)), next: cursorOf(page.next, LIST) });
  });

  const inviteBody = z
    .object({
      address: emailField,
      name: z
        .string()
        .max(NAME_MAX * 4)
        .default(""),
      projects: z.array(labelField).max(100).default([]),
      groups: z.array(labelField).max(100).default([]),
      role: z.enum(["user", "admin"]).default("user"),
      note: z
        .string()
        .max(INVITATION_NOTE_MAX * 4)
        .default(""),
      days: days.optional(),
    })
    .strict();
  router.post("/auth/invitations", async function inviteOne(req: Request, res: Response) {
    const by = await admin(req);
    const { days: lasts, ...terms } = await parseBody(req, inviteBody, "invalid_invitation");
    const invitation = await invite(deps, terms, by, lasts);
    res.status(201).json(invitationView(invitation, deps.clock.now()));
  });

  const fileQuery = z
    .object({ dryRun: z.enum(["true", "false"]).default("false"), days: z.coerce.number().pipe(days).optional() })
    .strict();
  router.post("/auth/invitations/file", async function inviteFile(req: Request, res: Response) {
    const by = await admin(req);
    const query = fileQuery.safeParse(req.query);
    ensure(
      query.success,
      "invalid_invitation",
      `Invalid query: dryRun true or false, days 1 to ${INVITATION_MAX_DAYS}`,
    );
    const { rows, problems } = readInvitationFile(await readText(req, "text/csv", FILE_LIMIT_BYTES));
    const dryRun = query.data.dryRun === "true";
    // A dry run shows every row, the bad ones too; a real run with a bad row invites nobody.
    if (!dryRun && problems.length > 0) throw new AppError("invalid_invitation_file", problemsText(problems));
    const outcome = await inviteMany(deps, rows, by, { dryRun, days: query.data.days });
    res.json({ ...outcome, problems });
  });

  router.get("/auth/invitations/:invitationId", async function getOne(req: Request, res: Response) {
    await requireAccess(deps, req, ADMIN);
    res.setHeader("Cache-Control", "no-store");
    res.json(invitationView(await findInvitation(deps, idParam(req)), deps.clock.now()));
  });

  const resendBody = z.object({ days: days.optional() }).strict();
  router.post("/auth/invitations/:invitationId/resend", async function resend(req: Request, res: Response) {
    const by = await admin(req);
    const body = await parseBody(req, resendBody, "invalid_invitation");
    const invitation = await resendInvitation(deps, idParam(req), by, body.days);
    res.json(invitationView(invitation, deps.clock.now()));
  });

  router.delete("/auth/invitations/:invitationId", async function revoke(req: Request, res: Response) {
    const by = await admin(req);
    await revokeInvitation(deps, idParam(req), by);
    res.json({ revoked: true });
  });

  return router;
}
