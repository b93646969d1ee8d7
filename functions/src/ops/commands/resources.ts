/** `resources …`: the family's resources (RFC 8707), for access tokens meant for one of them (core/oidc/resources). */
import { allowClient, listResources, openToAgents, registerResource, removeResource } from "../../core/oidc/resources";
import { projectName } from "./people-access";
import type { Resource } from "../../core/model/resource";
import { many, one, type Command } from "../cli";
import { table } from "../output";
import { UsageError } from "../refusals";

function view(r: Resource) {
  return {
    url: r.url,
    name: r.name,
    scopes: r.scopes,
    clients: r.clients,
    agents: r.agents,
    project: r.project,
    createdAt: r.createdAt.toISOString(),
  };
}

type View = ReturnType<typeof view>;

const columns = [
  { header: "URL", value: (r: View) => r.url },
  { header: "SCOPES", value: (r: View) => (r.scopes.length === 0 ? "-" : r.scopes.join(" ")) },
  { header: "CLIENTS", value: (r: View) => (r.clients.length === 0 ? "-" : r.clients.join(" ")) },
  { header: "AGENTS", value: (r: View) => (r.agents ? "open" : "-") },
  { header: "PROJECT", value: (r: View) => r.project ?? "-" },
  { header: "NAME", value: (r: View) => r.name },
];

const backend = true;

export const resourceCommands: Command[] = [
  {
    name: "resources add",
    audited: true,
    summary:
      "register a resource of the family by its URL: its scopes, the clients that may ask for it (or every agent)",
    usage:
      "resources add <url> --name <name> (--client <client_id>... | --agents) [--client <client_id>...] [--scope <scope>...] [--needs-project <project>]",
    options: {
      name: { type: "string" },
      scope: { type: "string", multiple: true },
      client: { type: "string", multiple: true },
      agents: { type: "boolean" },
      "needs-project": { type: "string" },
    },
    positionals: [1, 1],
    backend,
    async run(ctx, [url], values) {
      const name = one(values, "name");
      if (!name) throw new UsageError("resources add: --name is required");
      const clients = many(values, "client");
      const agents = values.agents === true;
      if (clients.length === 0 && !agents)
        throw new UsageError("resources add: at least one --client, or --agents, is required");
      const project = one(values, "needs-project");
      const input = { url: url as string, name, scopes: many(values, "scope"), clients, agents };
      const resource = view(
        await registerResource(ctx.deps(), { ...input, project: project === undefined ? null : projectName(project) }),
      );
      ctx.print(`registered ${resource.url}`, resource);
      ctx.note(
        "Clients name it as `resource`; its tokens are JWTs whose audience is this URL (docs/endpoints/oidc.md).",
      );
    },
  },
  {
    name: "resources allow",
    audited: true,
    summary: "let one more client ask for tokens for a resource",
    usage: "resources allow <url> <client_id>",
    positionals: [2, 2],
    backend,
    async run(ctx, [url, clientId]) {
      const resource = view(await allowClient(ctx.deps(), url as string, clientId as string, true));
      ctx.print(`${clientId as string} may ask for ${resource.url}`, resource);
    },
  },
  {
    name: "resources disallow",
    audited: true,
    summary: "stop a client asking for a resource: no new token, its grants for it refresh no more (asks first)",
    usage: "resources disallow <url> <client_id> [--yes]",
    positionals: [2, 2],
    backend,
    async run(ctx, [url, clientId]) {
      await ctx.confirm(`Stop ${clientId as string} getting tokens for ${url as string}?`);
      const resource = view(await allowClient(ctx.deps(), url as string, clientId as string, false));
      ctx.print(`${clientId as string} may no longer ask for ${resource.url}`, resource);
    },
  },
  {
    name: "resources open-to-agents",
    audited: true,
    summary: "let every client that registered itself ask for a resource, each person's consent deciding",
    usage: "resources open-to-agents <url>",
    positionals: [1, 1],
    backend,
    async run(ctx, [url]) {
      const resource = view(await openToAgents(ctx.deps(), url as string, true));
      ctx.print(`agents may ask for ${resource.url}, each with the person's consent`, resource);
    },
  },
  {
    name: "resources close-to-agents",
    audited: true,
    summary: "stop clients that registered themselves asking for a resource; their grants refresh no more (asks first)",
    usage: "resources close-to-agents <url> [--yes]",
    positionals: [1, 1],
    backend,
    async run(ctx, [url]) {
      await ctx.confirm(`Stop every client that registered itself getting tokens for ${url as string}?`);
      const resource = view(await openToAgents(ctx.deps(), url as string, false));
      ctx.print(`agents may no longer ask for ${resource.url}`, resource);
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
    audited: true,
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
