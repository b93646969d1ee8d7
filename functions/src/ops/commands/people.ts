/** `people …` and `bootstrap-admin`: the operator's hand on people, through core/people (access: people-access.ts). */
import { unfinishedErasures } from "../../store/personal-data";
import { bootstrapAdmin } from "../../core/people/operator";
import { personHistory } from "../../core/people/history";
import type { HistoryEntry } from "../../core/model/history";
import { findPeople, reindexPeople, reviewQueue } from "../../core/people/find-people";
import type { Person } from "../../core/model/person";
import { removeAllPasskeys } from "../../core/passkeys/passkeys";
import { exportPersonData } from "../../core/account/own-data";
import { erasePerson } from "../../core/account/erasure";
import { one, type Command } from "../cli";
import { table } from "../output";
import { UsageError } from "../refusals";
import { AppError } from "../../core/errors";
import { accessCommands, projectName } from "./people-access";
import { ENROLMENT_GRACE_DAYS } from "../../core/model/passkey-rule";
import { actorText, changeText, describe, line, named, proved, reach, signedOutOf, TOLD, view } from "./person-text";

const STATUSES = ["pending", "approved", "rejected"] as const;
const ROLES = ["user", "admin"] as const;

const who = { usage: "<id|email>", positionals: [1, 1] as [number, number] };
const backend = true;

export const peopleCommands: Command[] = [
  {
    name: "people list",
    summary: "people, filtered by status, project or role",
    usage: "people list [--status pending|approved|rejected] [--in-project <p>] [--role user|admin] [--limit <n>]",
    options: {
      status: { type: "string" },
      "in-project": { type: "string" },
      role: { type: "string" },
      limit: { type: "string" },
    },
    positionals: [0, 0],
    backend,
    async run(ctx, _args, values) {
      const status = one(values, "status");
      const role = one(values, "role");
      const limit = Number(one(values, "limit") ?? "1000");
      if (status !== undefined && !(STATUSES as readonly string[]).includes(status))
        throw new UsageError(`--status must be one of ${STATUSES.join(", ")}`);
      if (role !== undefined && !(ROLES as readonly string[]).includes(role))
        throw new UsageError(`--role must be one of ${ROLES.join(", ")}`);
      if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) throw new UsageError("--limit must be 1 to 10000");
      // Not --project: that names the Firebase project every command runs against. People granted
      // that project by name; admins and `*` grants reach every project without being listed here.
      const inProject = one(values, "in-project");
      // The one lister the API's list uses too, oldest first, one page of `limit`.
      const { people: found } = await findPeople(ctx.deps(), {
        ...(status === undefined ? {} : { status: status as Person["status"] }),
        ...(role === undefined ? {} : { role: role as Person["role"] }),
        ...(inProject === undefined ? {} : { project: projectName(inProject) }),
        order: "oldest",
        limit,
        after: null,
      });
      const columns = [
        { header: "ID", value: (p: Person) => p.id },
        { header: "EMAIL OR PHONE", value: reach },
        { header: "STATUS", value: (p: Person) => p.status },
        { header: "ROLE", value: (p: Person) => p.role },
        { header: "PROJECTS", value: (p: Person) => p.projects.join(",") || "-" },
        { header: "NAME", value: (p: Person) => p.name },
      ];
      ctx.print(table(found, columns, "(nobody)"), found.map(view));
    },
  },
  {
    name: "people queue",
    summary: "who waits for review, oldest first, with what they proved and their note",
    usage: "people queue [--limit <n>]",
    options: { limit: { type: "string" } },
    positionals: [0, 0],
    backend,
    async run(ctx, _args, values) {
      const limit = Number(one(values, "limit") ?? "50");
      if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new UsageError("--limit must be 1 to 100");
      const queue = await reviewQueue(ctx.deps(), limit, null);
      const columns = [
        { header: "ID", value: (p: Person) => p.id },
        { header: "WAITING SINCE", value: (p: Person) => p.createdAt.toISOString().slice(0, 16).replace("T", " ") },
        { header: "PROVED", value: proved },
        { header: "NAME", value: (p: Person) => p.name },
        { header: "NOTE", value: (p: Person) => p.note },
      ];
      const more = queue.waiting - queue.people.length;
      ctx.print(
        `${queue.waiting} waiting\n${table(queue.people, columns, "(nobody waits)")}${more > 0 ? `\n…and ${more} more (--limit)` : ""}`,
        { waiting: queue.waiting, people: queue.people.map(view) },
      );
    },
  },
  {
    name: "people history",
    summary: "what was done to a person: who, when, how, and what changed (newest first)",
    usage: "people history <id|email> [--limit <n>]",
    options: { limit: { type: "string" } },
    positionals: who.positionals,
    backend,
    async run(ctx, [id], values) {
      const limit = Number(one(values, "limit") ?? "50");
      if (!Number.isInteger(limit) || limit < 1 || limit > 200) throw new UsageError("--limit must be 1 to 200");
      const person = await ctx.person(id as string);
      const { entries } = await personHistory(ctx.deps(), person.id, limit, null);
      const columns = [
        { header: "WHEN", value: (e: HistoryEntry) => e.at.toISOString().slice(0, 19).replace("T", " ") },
        { header: "BY", value: (e: HistoryEntry) => actorText(e.by) },
        { header: "VIA", value: (e: HistoryEntry) => e.via },
        { header: "EVENT", value: (e: HistoryEntry) => e.event },
        { header: "CHANGES", value: (e: HistoryEntry) => changeText(e.changes) },
      ];
      ctx.print(
        table(entries, columns, "(no history)"),
        entries.map((e) => ({ ...e, at: e.at.toISOString() })),
      );
    },
  },
  {
    name: "people show",
    summary: "one person, by id or email address",
    usage: "people show <id|email>",
    positionals: who.positionals,
    backend,
    async run(ctx, [id]) {
      const person = await ctx.person(id as string);
      ctx.print(describe(person), view(person));
    },
  },
  ...accessCommands,
  {
    name: "people reindex",
    audited: true,
    summary: "write what lists and searches find people by, where it is missing (after an upgrade)",
    usage: "people reindex",
    positionals: [0, 0],
    backend,
    async run(ctx) {
      const updated = await reindexPeople(ctx.deps());
      ctx.print(`reindexed ${updated} ${updated === 1 ? "person" : "people"}`, { updated });
    },
  },
  {
    name: "people remove-passkeys",
    audited: true,
    summary: "remove every passkey of a person (a lost device); they sign in by email code (asks first)",
    usage: "people remove-passkeys <id|email> [--yes]",
    positionals: who.positionals,
    backend,
    async run(ctx, [id]) {
      const deps = ctx.deps();
      const person = await ctx.person(id as string);
      await ctx.confirm(`Remove every passkey of ${named(person)}?`);
      const removed = await removeAllPasskeys(deps, person.id, { operator: ctx.actor() });
      ctx.print(`removed ${removed} passkey(s): ${line(person)}`, { person: view(person), removed });
    },
  },
  {
    name: "people export",
    audited: true,
    summary: "print everything kept about a person as one JSON document (their copy, GDPR Art. 15 and 20)",
    usage: "people export <id|email>",
    positionals: who.positionals,
    backend,
    async run(ctx, [id]) {
      const deps = ctx.deps();
      const person = await ctx.person(id as string);
      const data = await exportPersonData(deps, person.id, { operator: ctx.actor() });
      ctx.print(JSON.stringify(data, null, 2), data);
    },
  },
  {
    name: "people erase",
    audited: true,
    summary: "delete a person and everything kept about them, their provider accounts too (asks first)",
    usage: "people erase <id|email> [--yes]",
    positionals: who.positionals,
    backend,
    async run(ctx, [id]) {
      const deps = ctx.deps();
      const who = id as string;
      const person = await ctx.person(who).catch(async (err: unknown) => {
        // An erasure that stopped half-way (its person already gone) is finished by its id.
        if (who.includes("@") || !(err instanceof AppError)) throw err;
        const { finished, providerSyncErrors } = await erasePerson(deps, who, { operator: ctx.actor() });
        ctx.print(finished ? `finished erasing ${who}` : `erasing ${who}: not finished yet`, {
          erased: who,
          finished,
          providerSyncErrors,
        });
        for (const e of providerSyncErrors) ctx.note(`account ${e.uid}: ${e.error}`);
        return null;
      });
      if (person === null) return;
      await ctx.confirm(
        `Erase ${named(person)}? Their sessions end; their ${person.uids.length} account(s) at the identity provider, passkeys, history and requests are deleted; only a record that someone was erased is kept. This cannot be undone.`,
      );
      const { finished, providerSyncErrors, apps } = await erasePerson(deps, person.id, { operator: ctx.actor() });
      ctx.print(`erased ${person.id}${finished ? "" : "; not finished yet"}${signedOutOf(apps)}`, {
        erased: person.id,
        finished,
        providerSyncErrors,
        apps,
      });
      for (const e of providerSyncErrors) ctx.note(`account ${e.uid}: ${e.error}`);
      if (apps.length > 0) ctx.note(TOLD);
    },
  },
  {
    name: "people erasures",
    summary: "list erasures not finished yet: their provider accounts still to delete (retried by itself)",
    usage: "people erasures",
    positionals: [0, 0],
    backend,
    async run(ctx) {
      const unfinished = await unfinishedErasures(ctx.deps().store);
      const lines = unfinished.map(
        (e) =>
          `${e.personId}  begun ${e.startedAt.toISOString()}  ${e.uids.length} provider account(s) left` +
          `  last tried ${e.lastTriedAt?.toISOString() ?? "-"}`,
      );
      ctx.print(lines.length === 0 ? "every erasure is finished" : lines.join("\n"), { unfinished });
      if (lines.length > 0)
        ctx.note("Each is retried by itself until it is done; `people erase <id>` tries to finish one now.");
    },
  },
  {
    name: "bootstrap-admin",
    audited: true,
    summary: "make the first admin (approved, every project); refused if any admin exists",
    usage: "bootstrap-admin <email> [--name <name>]",
    options: { name: { type: "string" } },
    positionals: [1, 1],
    backend,
    async run(ctx, [email], values) {
      const { person, created } = await bootstrapAdmin(
        ctx.deps(),
        email as string,
        one(values, "name") ?? "",
        ctx.actor(),
      );
      ctx.print(`${created ? "created" : "promoted"} the first admin: ${line(person)}`, {
        person: view(person),
        created,
      });
      ctx.note(
        `They sign in with an email code at ${email as string}; their account is linked by that address. Where the passkey rule holds administrators, that sign-in walks them through adding a passkey (an email code is enough for it for ${ENROLMENT_GRACE_DAYS} days), and they act as one from a sign-in with it.`,
      );
    },
  },
];
