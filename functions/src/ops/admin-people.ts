/** `people …` and `bootstrap-admin`: the operator's hand on people, through core/people. */
import { bootstrapAdmin, findPersonByIdOrEmail } from "../core/people/operator";
import { changePerson, listPeople, type Person, type PersonChange } from "../core/people/people-admin";
import { removeAllPasskeys } from "../core/passkeys/passkeys";
import { UsageError, one, type Command, type Context } from "./cli";

const STATUSES = ["pending", "approved", "rejected"] as const;
const ROLES = ["user", "admin"] as const;

function view(p: Person) {
  return {
    id: p.id,
    name: p.name,
    emails: p.emails,
    phones: p.phones,
    status: p.status,
    role: p.role,
    projects: p.projects,
    groups: p.groups,
    accounts: p.uids.length,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}

const line = (p: Person) =>
  `${p.id}  ${p.emails[0] ?? p.phones[0] ?? "-"}  ${p.status}  ${p.role}  [${p.projects.join(",")}]  ${p.name}`;

function describe(p: Person): string {
  const v = view(p);
  return Object.entries(v)
    .map(([k, value]) => `${k}: ${Array.isArray(value) ? value.join(", ") : String(value)}`)
    .join("\n");
}

/** A change computed from the person as the transaction reads them, printed with any provider sync errors. */
async function change(
  ctx: Context,
  who: string,
  what: string,
  fields: PersonChange | ((p: Person) => PersonChange),
): Promise<void> {
  const deps = ctx.deps();
  const person = await findPersonByIdOrEmail(deps, who);
  const { person: after, providerSyncErrors } = await changePerson(deps, person.id, fields);
  ctx.print(`${what}: ${line(after)}`, { person: view(after), providerSyncErrors });
  for (const e of providerSyncErrors) ctx.note(`warning: ${e.error} (account ${e.uid}, ${e.operation})`);
}

function project(value: string): string {
  if (!/^(\*|[A-Za-z0-9._-]{1,100})$/.test(value)) throw new UsageError(`"${value}" is not a project name`);
  return value;
}

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
      const found = await listPeople(
        ctx.deps(),
        {
          ...(status === undefined ? {} : { status: status as Person["status"] }),
          ...(role === undefined ? {} : { role: role as Person["role"] }),
          ...(inProject === undefined ? {} : { project: project(inProject) }),
        },
        limit,
      );
      ctx.print(found.length === 0 ? "(nobody)" : found.map(line).join("\n"), found.map(view));
    },
  },
  {
    name: "people show",
    summary: "one person, by id or email address",
    usage: "people show <id|email>",
    positionals: [1, 1],
    async run(ctx, [who]) {
      const person = await findPersonByIdOrEmail(ctx.deps(), who as string);
      ctx.print(describe(person), view(person));
    },
  },
  {
    name: "people approve",
    summary: "approve a person (pending or rejected)",
    usage: "people approve <id|email>",
    positionals: [1, 1],
    run: (ctx, [who]) => change(ctx, who as string, "approved", { status: "approved" }),
  },
  {
    name: "people reject",
    summary: "reject a person; their provider sessions are revoked",
    usage: "people reject <id|email>",
    positionals: [1, 1],
    run: (ctx, [who]) => change(ctx, who as string, "rejected", { status: "rejected" }),
  },
  {
    name: "people grant",
    summary: "give a person a project (* for every project)",
    usage: "people grant <id|email> <project>",
    positionals: [2, 2],
    run: (ctx, [who, p]) => {
      const granted = project(p as string);
      return change(ctx, who as string, `granted ${granted}`, (current) => ({
        projects: current.projects.includes(granted) ? current.projects : [...current.projects, granted],
      }));
    },
  },
  {
    name: "people revoke",
    summary: "take a project away from a person",
    usage: "people revoke <id|email> <project>",
    positionals: [2, 2],
    run: (ctx, [who, p]) => {
      const revoked = project(p as string);
      return change(ctx, who as string, `revoked ${revoked}`, (current) => ({
        projects: current.projects.filter((x) => x !== revoked),
      }));
    },
  },
  {
    name: "people make-admin",
    summary: "make a person an admin",
    usage: "people make-admin <id|email>",
    positionals: [1, 1],
    run: (ctx, [who]) => change(ctx, who as string, "admin", { role: "admin" }),
  },
  {
    name: "people unmake-admin",
    summary: "make an admin a user again",
    usage: "people unmake-admin <id|email>",
    positionals: [1, 1],
    run: (ctx, [who]) => change(ctx, who as string, "no longer admin", { role: "user" }),
  },
  {
    name: "people remove-passkeys",
    summary: "remove every passkey of a person (a lost device); they sign in by email code",
    usage: "people remove-passkeys <id|email>",
    positionals: [1, 1],
    async run(ctx, [who]) {
      const person = await findPersonByIdOrEmail(ctx.deps(), who as string);
      const removed = await removeAllPasskeys(ctx.deps(), person.id);
      ctx.print(`removed ${removed} passkey(s): ${line(person)}`, { person: view(person), removed });
    },
  },
  {
    name: "bootstrap-admin",
    summary: "make the first admin (approved, every project); refused if any admin exists",
    usage: "bootstrap-admin <email> [--name <name>]",
    options: { name: { type: "string" } },
    positionals: [1, 1],
    async run(ctx, [email], values) {
      const { person, created } = await bootstrapAdmin(ctx.deps(), email as string, one(values, "name") ?? "");
      ctx.print(`${created ? "created" : "promoted"} the first admin: ${line(person)}`, {
        person: view(person),
        created,
      });
      ctx.note(`They sign in with an email code at ${email as string}; their account is linked by that address.`);
    },
  },
];
