/**
 * The lists the docs keep that the code knows too are written from the code, between their
 * markers: every command of the operator CLI and a delivery's states (docs/operating.md), the
 * domain's records (docs/architecture.md) and every route of every group (docs/endpoints/README.md).
 * `node tools/doc-lists.ts --write` writes them (this file, with DOC_LISTS=write); otherwise a list
 * that is not the code's fails here, so a command, record or route added without its line fails.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { GROUPS, type GroupName } from "../../src/groups";
import { DELIVERY_STATES } from "../../src/ops/commands/hooks";
import { COMMANDS } from "../../src/ops/operator";

const ROOT = join(__dirname, "..", "..", "..");
const MODELS = join(ROOT, "functions", "src", "core", "model");

interface Route {
  method: string;
  path: string;
}

interface Sources {
  commands: Array<{ usage: string; summary: string }>;
  models: Array<{ file: string; text: string }>;
  routes: Array<{ group: string; routes: Route[] }>;
  states: Array<{ stored: string; shown: string; means: string }>;
}

/** A table cell: a pipe would end it. */
const cell = (text: string) => text.replace(/\|/g, "\\|");

function commandList({ commands }: Sources): string {
  return [
    "| Command | What it does |",
    "|---|---|",
    // A usage of two forms is two lines: each its own code span in the one cell.
    ...commands.map(
      (c) =>
        `| ${c.usage
          .split("\n")
          .map((form) => `\`${cell(form.trim())}\``)
          .join("<br>")} | ${cell(c.summary)} |`,
    ),
  ].join("\n");
}

function stateList({ states }: Sources): string {
  return [
    "| State | Stored as | What it means |",
    "|---|---|---|",
    ...states.map((s) => `| \`${s.shown}\` | \`${s.stored}\` | ${cell(s.means)} |`),
  ].join("\n");
}

/** A record's line: its file, and its header's first clause (up to the first `.`, `:` or `;`). */
function modelList({ models }: Sources): string {
  return models
    .map(({ file, text }) => {
      const header = /^\/\*\*([\s\S]*?)\*\//.exec(text)?.[1];
      if (header === undefined) throw new Error(`core/model/${file} opens with no comment saying what it is`);
      const words = header
        .split("\n")
        .map((line) => line.replace(/^\s*\*\s?/, "").trim())
        .join(" ")
        .trim();
      const first = words.split(/(?<=[^.])[.:;](?=\s|$)/)[0] as string;
      return `- \`${file}\`: ${first.trim()}`;
    })
    .join("\n");
}

/**
 * Which page tells of a route: the first row of its group whose pattern its path matches, in the
 * order the table lists them. A route no row takes fails the check until one does.
 */
const PAGES: Array<{ group: GroupName; page: string; paths: RegExp }> = [
  {
    group: "sessions",
    page: "[Sessions](sessions.md)",
    paths: /^\/auth\/(verify|session\/refresh|logout|project-access|exchange)$/,
  },
  {
    group: "sessions",
    page: "[A person's own sessions and notices](sessions.md#a-persons-own-sessions)",
    paths: /^\/auth\/(sessions|session\/notices)\b/,
  },
  { group: "sessions", page: "[Hand-off to an app outside the parent domain](handoff.md)", paths: /^\/auth\/handoff$/ },
  { group: "otp", page: "[Sign-in by email code](email-codes.md)", paths: /^\/auth\/otp\// },
  {
    group: "otp",
    page: "[A person's own addresses](people.md#a-persons-own-addresses)",
    paths: /^\/auth\/account\/addresses\b/,
  },
  { group: "bridge", page: "[Bridges](bridges.md)", paths: /^\/auth\/bridge\// },
  { group: "passkeys", page: "[Passkeys](passkeys.md)", paths: /^\/auth\/passkeys\b/ },
  {
    group: "oidc",
    page: "[OpenID Connect provider](oidc.md)",
    paths: /^\/(\.well-known\/(openid-configuration|oauth-authorization-server)|auth\/oidc\/)/,
  },
  { group: "claims", page: "[Claims callback of the identity provider](claims.md)", paths: /^\/auth\/idp\// },
  { group: "people", page: "[People administration](people.md)", paths: /^\/auth\/people\b/ },
  { group: "people", page: "[Invitations](people.md#invitations)", paths: /^\/auth\/invitations\b/ },
  {
    group: "people",
    page: "[Apps waiting for review](people.md#apps-waiting-for-review)",
    paths: /^\/auth\/clients\//,
  },
  { group: "people", page: "[The audit trail](people.md#the-audit-trail)", paths: /^\/auth\/audit$/ },
  { group: "people", page: "[The service's health](people.md#the-services-health)", paths: /^\/auth\/health$/ },
  {
    group: "people",
    page: "[A person's own account](people.md#a-persons-own-account)",
    paths: /^\/auth\/account(\/data|\/apps\b|$)/,
  },
  {
    group: "people",
    page: "[A person's linked accounts](people.md#a-persons-linked-accounts)",
    paths: /^\/auth\/account\/accounts\b/,
  },
  { group: "startpage", page: "[Start page](startpage.md)", paths: /^\/startpage\// },
  { group: "calendar", page: "[Calendar and location](calendar-location.md)", paths: /^\/calendar\// },
  { group: "location", page: "[Calendar and location](calendar-location.md)", paths: /^\/location$/ },
  { group: "status", page: "[Status](status.md)", paths: /^\/status$/ },
  { group: "mcp", page: "[MCP server](mcp.md)", paths: /^\/(mcp$|\.well-known\/oauth-protected-resource\/)/ },
];

/** `GET /a`; `GET` and `POST /a`; `GET`, `PATCH` and `DELETE /a`. */
function methodsOf(methods: string[], path: string): string {
  const named = methods.map((m) => `\`${m}`);
  const last = `${named.pop() as string} ${path}\``;
  const head = named.map((m) => `${m}\``);
  return head.length === 0 ? last : `${head.join(", ")} and ${last}`;
}

function routeList({ routes }: Sources): string {
  const rows = PAGES.map((p) => ({ ...p, paths: new Map<string, string[]>(), pattern: p.paths }));
  for (const { group, routes: served } of routes)
    for (const route of served) {
      const row = rows.find((r) => r.group === group && r.pattern.test(route.path));
      if (row === undefined) throw new Error(`${route.method} ${route.path} (${group}): no page of PAGES tells of it`);
      row.paths.set(route.path, [...(row.paths.get(route.path) ?? []), route.method]);
    }
  return [
    "| Function | Paths | Page |",
    "|---|---|---|",
    ...rows
      .filter((r) => r.paths.size > 0)
      .map((r) => `| \`${r.group}\` | ${[...r.paths].map(([path, m]) => methodsOf(m, path)).join(", ")} | ${r.page} |`),
  ].join("\n");
}

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

function routesIn(stack: Layer[]): Route[] {
  return stack.flatMap((layer) => {
    if (layer.route)
      return Object.keys(layer.route.methods)
        .filter((m) => m !== "_all")
        .map((m) => ({ method: m.toUpperCase(), path: layer.route?.path as string }));
    return layer.handle?.stack ? routesIn(layer.handle.stack) : [];
  });
}

/**
 * Dependencies that answer every question with themselves: a router is only built here, never
 * asked, so what its handlers would read does not matter.
 */
const anything: unknown = new Proxy(function () {}, {
  get: (_, key) => (key === Symbol.toPrimitive ? () => 0 : anything),
  apply: () => anything,
});

function sources(): Sources {
  return {
    commands: COMMANDS,
    models: readdirSync(MODELS)
      .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"))
      .sort()
      .map((file) => ({ file, text: readFileSync(join(MODELS, file), "utf8") })),
    routes: Object.entries(GROUPS).map(([group, load]) => ({
      group,
      routes: routesIn((load().routes(anything as never) as unknown as { stack: Layer[] }).stack),
    })),
    states: Object.entries(DELIVERY_STATES).map(([stored, s]) => ({ stored, ...s })),
  };
}

const LISTS: Array<{ name: string; doc: string; render: (s: Sources) => string }> = [
  { name: "commands", doc: "docs/operating.md", render: commandList },
  { name: "delivery-states", doc: "docs/operating.md", render: stateList },
  { name: "models", doc: "docs/architecture.md", render: modelList },
  { name: "routes", doc: "docs/endpoints/README.md", render: routeList },
];

const start = (name: string) => `<!-- list:${name}:start (node tools/doc-lists.ts --write) -->\n`;
const end = (name: string) => `\n<!-- list:${name}:end -->`;

/** What the doc holds between the list's markers; null where it has none. */
function written(text: string, name: string): string | null {
  const from = text.indexOf(start(name));
  const to = text.indexOf(end(name));
  return from < 0 || to < from ? null : text.slice(from + start(name).length, to);
}

const write = process.env.DOC_LISTS === "write";

describe("the lists the docs keep", () => {
  const code = sources();

  it.each(LISTS)("$doc lists the $name as the code has them", ({ name, doc, render }) => {
    const path = join(ROOT, doc);
    const text = readFileSync(path, "utf8");
    const was = written(text, name);
    if (was === null) throw new Error(`${doc} has no ${start(name).trim()} … ${end(name).trim()} markers`);
    const list = render(code);
    if (write && was !== list) {
      const from = text.indexOf(start(name)) + start(name).length;
      writeFileSync(path, text.slice(0, from) + list + text.slice(text.indexOf(end(name))));
      return;
    }
    // Out of date: `node tools/doc-lists.ts --write`, then read what changed.
    expect(was).toBe(list);
  });

  it("are stale once a command, a record or a route is added", () => {
    const added: Sources = {
      commands: [...code.commands, { usage: "people wave <who>", summary: "wave at a person" }],
      models: [...code.models, { file: "wave.ts", text: "/** A wave: no I/O here. */\n" }],
      routes: code.routes.map((g) =>
        g.group === "people"
          ? { ...g, routes: [...g.routes, { method: "POST", path: "/auth/people/:personId/wave" }] }
          : g,
      ),
      states: code.states,
    };
    for (const { name, render } of LISTS.filter((l) => l.name !== "delivery-states"))
      expect({ name, stale: render(added) !== render(code) }).toEqual({ name, stale: true });
  });

  it("refuses a route no page tells of", () => {
    const stray: Sources = { ...code, routes: [{ group: "status", routes: [{ method: "GET", path: "/wave" }] }] };
    expect(() => routeList(stray)).toThrow("GET /wave (status): no page of PAGES tells of it");
  });
});
