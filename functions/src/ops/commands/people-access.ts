/** `people approve|reject|grant|revoke|make-admin|unmake-admin`: a person's access, through core/people. */
import { appHostList } from "../../config/config";
import { changePerson, type PersonChange } from "../../core/people/change-person";
import type { Person } from "../../core/model/person";
import type { Command } from "../cli";
import type { Context } from "../context";
import { Refusal, UsageError } from "../refusals";
import { nearest } from "../suggest";
import { line, named, view } from "./person-text";

/**
 * A change computed from the person as the transaction reads them, printed with any provider sync
 * errors. A change that takes something away is confirmed first (`ask`), naming the person.
 */
async function change(
  ctx: Context,
  who: string,
  what: string,
  fields: PersonChange | ((p: Person) => PersonChange),
  ask?: (p: Person) => string,
): Promise<void> {
  const deps = ctx.deps();
  const person = await ctx.person(who);
  if (ask) await ctx.confirm(ask(person));
  const { person: after, providerSyncErrors } = await changePerson(deps, person.id, fields, { operator: ctx.actor() });
  ctx.print(`${what}: ${line(after)}`, { person: view(after), providerSyncErrors });
  for (const e of providerSyncErrors) ctx.note(`warning: ${e.error} (account ${e.uid}, ${e.operation})`);
}

export function projectName(value: string): string {
  if (!/^(\*|[A-Za-z0-9._-]{1,100})$/.test(value)) throw new UsageError(`"${value}" is not a project name`);
  return value;
}

/** A project some app of the family declares (APP_HOSTS), or `*`; anything else only with --force. */
export function declaredProject(ctx: Context, value: string, force: boolean): string {
  const project = projectName(value);
  ctx.config();
  const known = appHostList();
  if (force || project === "*" || known.includes(project)) return project;
  const guess = nearest([project], known);
  throw new Refusal(
    `no app declares the project "${project}" (APP_HOSTS: ${known.join(", ")})` +
      `${guess === null ? "" : `; did you mean "${guess}"?`} --force grants it anyway`,
  );
}

const who = { usage: "<id|email>", positionals: [1, 1] as [number, number] };
const backend = true;

export const accessCommands: Command[] = [
  {
    name: "people approve",
    audited: true,
    summary: "approve a person (pending or rejected)",
    usage: "people approve <id|email>",
    positionals: who.positionals,
    backend,
    run: (ctx, [id]) => change(ctx, id as string, "approved", { status: "approved" }),
  },
  {
    name: "people reject",
    audited: true,
    summary: "reject a person; their provider sessions are revoked (asks first)",
    usage: "people reject <id|email> [--yes]",
    positionals: who.positionals,
    backend,
    run: (ctx, [id]) =>
      change(
        ctx,
        id as string,
        "rejected",
        { status: "rejected" },
        (p) => `Reject ${named(p)}, ending their sessions?`,
      ),
  },
  {
    name: "people grant",
    audited: true,
    summary: "give a person a project an app declares (* for every project)",
    usage: "people grant <id|email> <project> [--force]",
    options: { force: { type: "boolean" } },
    positionals: [2, 2],
    backend,
    run: (ctx, [id, p], values) => {
      const granted = declaredProject(ctx, p as string, values.force === true);
      return change(ctx, id as string, `granted ${granted}`, (current) => ({
        projects: current.projects.includes(granted) ? current.projects : [...current.projects, granted],
      }));
    },
  },
  {
    name: "people revoke",
    audited: true,
    summary: "take a project away from a person (asks first)",
    usage: "people revoke <id|email> <project> [--yes]",
    positionals: [2, 2],
    backend,
    run: (ctx, [id, p]) => {
      const revoked = projectName(p as string);
      return change(
        ctx,
        id as string,
        `revoked ${revoked}`,
        (current) => ({ projects: current.projects.filter((x) => x !== revoked) }),
        (person) => `Take ${revoked} away from ${named(person)}?`,
      );
    },
  },
  {
    name: "people make-admin",
    audited: true,
    summary: "make a person an admin",
    usage: "people make-admin <id|email>",
    positionals: who.positionals,
    backend,
    run: (ctx, [id]) => change(ctx, id as string, "admin", { role: "admin" }),
  },
  {
    name: "people unmake-admin",
    audited: true,
    summary: "make an admin a user again; never the last admin (asks first)",
    usage: "people unmake-admin <id|email> [--yes]",
    positionals: who.positionals,
    backend,
    run: (ctx, [id]) =>
      change(ctx, id as string, "no longer admin", { role: "user" }, (p) => `Make ${named(p)} a user again?`),
  },
];
