/** `people invite`, `people invitations`, `people resend-invitation`, `people revoke-invitation`: through core/invitations. */
import { readFileSync } from "node:fs";
import { canonicalEmail } from "../../core/email-address";
import { AppError } from "../../core/errors";
import type { Invitation } from "../../core/model/invitation";
import type { Role } from "../../core/model/person";
import { readInvitationFile } from "../../core/invitations/invitation-file";
import { inviteMany } from "../../core/invitations/invite-many";
import {
  findInvitation,
  invite,
  listInvitations,
  resendInvitation,
  revokeInvitation,
} from "../../core/invitations/invitations";
import { invitationView as view, stateOf } from "../../core/invitations/invitation-view";
import { invitationId } from "../../store/invitations";
import { many, one, type Command } from "../cli";
import type { Context } from "../context";
import { table } from "../output";
import { Refusal, UsageError } from "../refusals";
import { declaredProject } from "./people-access";

const backend = true;
const day = (at: Date) => at.toISOString().slice(0, 16).replace("T", " ");

function daysOf(values: Record<string, unknown>): number | undefined {
  const raw = one(values, "days");
  if (raw === undefined) return undefined;
  const days = Number(raw);
  if (!Number.isInteger(days) || days < 1 || days > 90) throw new UsageError("--days must be 1 to 90");
  return days;
}

/** An invitation named by its address or its id. */
function idOf(given: string): string {
  if (given.startsWith("inv_")) return given;
  const address = canonicalEmail(given);
  if (address === null) throw new UsageError(`"${given}" is neither an address nor an invitation id`);
  return invitationId(address);
}

export function invitationText(i: Invitation, now: Date): string {
  const gives = [i.role === "admin" ? "admin" : "", i.projects.join(",") || "no projects"].filter(Boolean).join(", ");
  return `${i.address} (${gives}; ${stateOf(i, now)} until ${day(i.expiresAt)} UTC)`;
}

async function inviteFromFile(ctx: Context, path: string, dryRun: boolean, days: number | undefined): Promise<void> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    throw new UsageError(`cannot read ${path}`);
  }
  const { rows, problems } = readInvitationFile(text);
  if (problems.length > 0) {
    for (const p of problems) ctx.note(`${path}:${p.line}: ${p.error}`);
    throw new Refusal(`nobody was invited: ${problems.length} row(s) to fix first`);
  }
  const outcome = await inviteMany(ctx.deps(), rows, { operator: ctx.actor() }, { dryRun, days });
  const columns = [
    { header: "LINE", value: (r: (typeof outcome.rows)[number]) => String(r.line) },
    { header: "ADDRESS", value: (r: (typeof outcome.rows)[number]) => r.address },
    {
      header: dryRun ? "WOULD BE" : "OUTCOME",
      value: (r: (typeof outcome.rows)[number]) => (r.outcome === "held" ? `held by ${r.personId}` : r.outcome),
    },
  ];
  const { counts } = outcome;
  const summary = `${dryRun ? "dry run: would invite" : "invited"} ${counts.invited}, already invited ${counts["already-invited"]}, already a person ${counts.held}`;
  ctx.print(`${table(outcome.rows, columns, "(no rows)")}\n${summary}`, outcome);
}

export const invitationCommands: Command[] = [
  {
    name: "people invite",
    audited: true,
    summary: "invite an address, approved ahead with projects; or every row of a CSV file (--file)",
    usage:
      "people invite <email> <project> [<project> …] [--group <g>]… [--role user|admin] [--name <n>] [--note <text>] [--days <n>] [--force]\n" +
      "       people invite --file <people.csv> [--dry-run] [--days <n>]   (columns: address, name, projects, groups, role, note; lists split by ;)",
    options: {
      group: { type: "string", multiple: true },
      role: { type: "string" },
      name: { type: "string" },
      note: { type: "string" },
      days: { type: "string" },
      force: { type: "boolean" },
      file: { type: "string" },
      "dry-run": { type: "boolean" },
    },
    positionals: [0, 101],
    backend,
    async run(ctx, args, values) {
      const days = daysOf(values);
      const file = one(values, "file");
      if (file !== undefined) {
        if (args.length > 0) throw new UsageError("--file takes the addresses from the file, not the command line");
        return inviteFromFile(ctx, file, values["dry-run"] === true, days);
      }
      const [given, ...projectArgs] = args;
      if (given === undefined) throw new UsageError("name an address to invite, or --file");
      const address = canonicalEmail(given);
      if (address === null) throw new UsageError(`"${given}" is not an email address`);
      const role = one(values, "role") ?? "user";
      if (role !== "user" && role !== "admin") throw new UsageError("--role must be user or admin");
      const projects = projectArgs.map((p) => declaredProject(ctx, p, values.force === true));
      const terms = {
        address,
        name: one(values, "name") ?? "",
        note: one(values, "note") ?? "",
        projects,
        groups: many(values, "group"),
        role: role as Role,
      };
      try {
        const deps = ctx.deps();
        const invitation = await invite(deps, terms, { operator: ctx.actor() }, days);
        const now = deps.clock.now();
        ctx.print(`invited ${invitationText(invitation, now)}`, view(invitation, now));
      } catch (err) {
        if (err instanceof AppError && err.code === "already_invited")
          throw new Refusal(
            `${address} has an invitation already: people resend-invitation ${address}, or revoke it first`,
          );
        throw err;
      }
    },
  },
  {
    name: "people invitations",
    summary: "invitations not yet taken up, newest first, live and expired",
    usage: "people invitations [--limit <n>]",
    options: { limit: { type: "string" } },
    positionals: [0, 0],
    backend,
    async run(ctx, _args, values) {
      const limit = Number(one(values, "limit") ?? "100");
      if (!Number.isInteger(limit) || limit < 1 || limit > 200) throw new UsageError("--limit must be 1 to 200");
      const deps = ctx.deps();
      const { invitations } = await listInvitations(deps, limit, null);
      const now = deps.clock.now();
      const columns = [
        { header: "ADDRESS", value: (i: Invitation) => i.address },
        { header: "STATE", value: (i: Invitation) => stateOf(i, now) },
        { header: "EXPIRES (UTC)", value: (i: Invitation) => day(i.expiresAt) },
        { header: "ROLE", value: (i: Invitation) => i.role },
        { header: "PROJECTS", value: (i: Invitation) => i.projects.join(",") || "-" },
        { header: "SENDS", value: (i: Invitation) => String(i.sends) },
      ];
      ctx.print(
        table(invitations, columns, "(no invitations)"),
        invitations.map((i) => view(i, now)),
      );
    },
  },
  {
    name: "people resend-invitation",
    audited: true,
    summary: "send an invitation's mail again, renewed for --days (default 14)",
    usage: "people resend-invitation <email|invitation id> [--days <n>]",
    options: { days: { type: "string" } },
    positionals: [1, 1],
    backend,
    async run(ctx, [given], values) {
      const deps = ctx.deps();
      const invitation = await resendInvitation(deps, idOf(given as string), { operator: ctx.actor() }, daysOf(values));
      const now = deps.clock.now();
      ctx.print(`sent again: ${invitationText(invitation, now)}`, view(invitation, now));
    },
  },
  {
    name: "people revoke-invitation",
    audited: true,
    summary: "revoke an invitation: the address is a stranger again (asks first)",
    usage: "people revoke-invitation <email|invitation id> [--yes]",
    positionals: [1, 1],
    backend,
    async run(ctx, [given]) {
      const deps = ctx.deps();
      const invitation = await findInvitation(deps, idOf(given as string));
      await ctx.confirm(`Revoke the invitation of ${invitation.address}?`);
      await revokeInvitation(deps, invitation.id, { operator: ctx.actor() });
      ctx.print(`revoked the invitation of ${invitation.address}`, { revoked: invitation.id });
    },
  },
];
