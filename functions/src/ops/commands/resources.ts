/** `resources …`: the family's resources (RFC 8707), for access tokens meant for one of them (core/oidc/resources). */
import { listResources, registerResource, removeResource } from "../../core/oidc/resources";
import type { Resource } from "../../core/model/resource";
import { many, one, type Command } from "../cli";
import { table } from "../output";
import { UsageError } from "../refusals";

function view(r: Resource) {
  return { url: r.url, name: r.name, scopes: r.scopes, createdAt: r.createdAt.toISOString() };
}

type View = ReturnType<typeof view>;

const columns = [
  { header: "URL", value: (r: View) => r.url },
  { header: "SCOPES", value: (r: View) => (r.scopes.length === 0 ? "-" : r.scopes.join(" ")) },
  { header: "NAME", value: (r: View) => r.name },
];

const backend = true;

export const resourceCommands: Command[] = [
  {
    name: "resources add",
    summary: "register a resource of the family, by its URL, with the scopes it defines",
    usage: "resources add <url> --name <name> [--scope <scope>...]",
    options: { name: { type: "string" }, scope: { type: "string", multiple: true } },
    positionals: [1, 1],
    backend,
    async run(ctx, [url], values) {
      const name = one(values, "name");
      if (!name) throw new UsageError("resources add: --name is required");
      const resource = view(
        await registerResource(ctx.deps(), { url: url as string, name, scopes: many(values, "scope") }),
      );
      ctx.print(`registered ${resource.url}`, resource);
      ctx.note(
        "Clients name it as `resource`; its tokens are JWTs whose audience is this URL (docs/endpoints/oidc.md).",
      );
    },
  },
  {
    name: "resources list",
    summary: "the registered resources and their scopes",
    usage: "resources list",
    positionals: [0, 0],
    backend,
    async run(ctx) {
      const resources = (await listResources(ctx.deps())).map(view);
      ctx.print(table(resources, columns, "(no resources)"), resources);
    },
  },
  {
    name: "resources remove",
    summary: "stop issuing tokens for a resource; its grants refresh no more (asks first)",
    usage: "resources remove <url> [--yes]",
    positionals: [1, 1],
    backend,
    async run(ctx, [url]) {
      await ctx.confirm(`Stop issuing tokens for ${url as string}? Tokens already issued live out their ten minutes.`);
      await removeResource(ctx.deps(), url as string);
      ctx.print(`removed ${url as string}`, { url });
    },
  },
];
