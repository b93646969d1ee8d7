/** `clients …`: OpenID Connect relying parties, through core/oidc/clients. */
import {
  DEFAULT_ROTATION_OVERLAP_MS,
  addPostLogoutRedirectUri,
  addRedirectUri,
  createClient,
  disableClient,
  enableClient,
  isClientId,
  isDocumentClientId,
  isRedirectUri,
  listClients,
  removePostLogoutRedirectUri,
  removeRedirectUri,
  rotateSecret,
  setBackchannelLogoutUri,
  setPkcePolicy,
  setRefreshTokens,
  setClientProject,
  showClient,
  unknownClient,
} from "../../core/oidc/clients";
import { removeClient, reviewClient } from "../../core/oidc/client-review";
import { many, one, parseDuration, type Command } from "../cli";
import { urlProblem } from "../../core/events/hooks";
import type { Context } from "../context";
import { table } from "../output";
import { UsageError } from "../refusals";
import { projectName } from "./people-access";
import type { OidcClient, PkcePolicy } from "../../core/model/oidc-client";

function view(c: OidcClient) {
  return {
    clientId: c.clientId,
    name: c.name,
    redirectUris: c.redirectUris,
    postLogoutRedirectUris: c.postLogoutRedirectUris,
    backchannelLogoutUri: c.backchannelLogoutUri,
    pkce: c.pkce,
    refreshTokens: c.refreshTokens,
    project: c.project,
    disabled: c.disabled,
    registeredBy: c.registeredBy,
    review: c.review,
    tokenAuth: c.tokenAuth,
    clientUri: c.clientUri,
    logoUri: c.logoUri,
    triedBy: c.triedBy.length,
    documentFetchedAt: c.document?.fetchedAt.toISOString() ?? null,
    // Never the hashes: when each secret was made and until when it works.
    secrets: c.secrets.map((s) => ({
      createdAt: s.createdAt.toISOString(),
      expiresAt: s.expiresAt?.toISOString() ?? null,
    })),
    createdAt: c.createdAt.toISOString(),
  };
}

const columns = [
  { header: "CLIENT ID", value: (c: OidcClient) => c.clientId },
  { header: "STATUS", value: (c: OidcClient) => (c.disabled ? "disabled" : "enabled") },
  { header: "BY", value: (c: OidcClient) => c.registeredBy },
  { header: "REVIEW", value: (c: OidcClient) => c.review },
  { header: "PKCE", value: (c: OidcClient) => c.pkce },
  { header: "REFRESH", value: (c: OidcClient) => (c.refreshTokens ? "allowed" : "no") },
  { header: "SECRETS", value: (c: OidcClient) => String(c.secrets.length) },
  { header: "REDIRECT URIS", value: (c: OidcClient) => String(c.redirectUris.length) },
  { header: "NAME", value: (c: OidcClient) => c.name },
];

const REGISTERED_BY = {
  operator: "the operator",
  self: "itself (RFC 7591)",
  document: "itself, by the metadata document its id names",
} as const;

function describe(c: OidcClient): string {
  const v = view(c);
  return [
    `clientId: ${v.clientId}`,
    `name: ${v.name}`,
    `status: ${v.disabled ? "disabled" : "enabled"}`,
    `registered by: ${REGISTERED_BY[v.registeredBy]}`,
    `review: ${v.review}${v.triedBy > 0 ? ` (${v.triedBy} tried to use it, told when it is decided)` : ""}`,
    ...(v.documentFetchedAt === null ? [] : [`metadata document read: ${v.documentFetchedAt}`]),
    `authenticates: ${v.tokenAuth === "none" ? "by client_id alone (public client, PKCE)" : "with a secret"}`,
    ...(v.clientUri === null ? [] : [`client URI: ${v.clientUri}`]),
    ...(v.logoUri === null ? [] : [`logo URI: ${v.logoUri}`]),
    `pkce: ${v.pkce}`,
    `refresh tokens: ${v.refreshTokens ? "allowed (for a sign-in that asks for offline_access)" : "no"}`,
    `project: ${v.project === null ? "none (any approved person may sign in)" : `${v.project} (only people granted it may sign in)`}`,
    ...v.redirectUris.map((u) => `redirect URI: ${u}`),
    ...v.postLogoutRedirectUris.map((u) => `post-logout redirect URI: ${u}`),
    `back-channel logout URI: ${v.backchannelLogoutUri ?? "none"}`,
    ...v.secrets.map((s) => `secret: made ${s.createdAt}${s.expiresAt ? `, works until ${s.expiresAt}` : ""}`),
    `created: ${v.createdAt}`,
  ].join("\n");
}

/** A project a person must be granted to use the client, named as `people grant` names them; "none" for none. */
function neededProject(value: string): string | null {
  return value === "none" ? null : projectName(value);
}

function clientId(value: string): string {
  if (!isClientId(value) && !isDocumentClientId(value))
    throw new UsageError(`"${value}" is not a client id (1-128 of A-Z a-z 0-9 . _ ~ -, or an https URL)`);
  return value;
}

function redirectUri(value: string): string {
  if (!isRedirectUri(value))
    throw new UsageError(`"${value}" is not a redirect URI (absolute https, or http on loopback; no fragment)`);
  return value;
}

/** Where logout tokens go: https (http on loopback only on the emulators), as a webhook's address; `none` for nowhere. */
function backchannelUri(ctx: Context, value: string): string | null {
  if (value === "none") return null;
  const problem = urlProblem(value, ctx.deps().config.loopbackHooks);
  if (problem !== null) throw new UsageError(`"${value}" cannot take logout tokens: ${problem}`);
  return value;
}

function pkce(value: string | undefined): PkcePolicy {
  if (value === undefined || value === "required") return "required";
  if (value === "optional") return "optional";
  throw new UsageError(`PKCE must be "required" or "optional", not "${value}"`);
}

/** Shows the client after a change, with when the change reaches every instance. */
function changed(ctx: Context, client: OidcClient): void {
  ctx.print(describe(client), view(client));
  ctx.note("Instances that have the client cached see the change within 30 seconds.");
}

/** Shows a reviewed client, and how many of the people who tried it are mailed the decision. */
function reviewed(ctx: Context, { client, told }: { client: OidcClient; told: number }): void {
  changed(ctx, client);
  if (told > 0)
    ctx.note(`${told === 1 ? "1 person" : `${told} people`} who tried it while it waited will be mailed the decision.`);
}

const backend = true;

const secretNote =
  "The secret is shown this once; only its hash is stored. The client authenticates at /auth/oidc/token with it.";

export const clientCommands: Command[] = [
  {
    name: "clients register",
    audited: true,
    summary: "register a relying party; prints its generated secret once",
    usage:
      "clients register <client_id> --name <name> --redirect-uri <uri> [--redirect-uri <uri>...] [--post-logout-redirect-uri <uri>...] [--backchannel-logout-uri <uri>] [--pkce required|optional] [--refresh-tokens] [--needs-project <project>]",
    options: {
      name: { type: "string" },
      "redirect-uri": { type: "string", multiple: true },
      "post-logout-redirect-uri": { type: "string", multiple: true },
      "backchannel-logout-uri": { type: "string" },
      pkce: { type: "string" },
      "refresh-tokens": { type: "boolean" },
      "needs-project": { type: "string" },
    },
    positionals: [1, 1],
    backend,
    async run(ctx, [id], values) {
      const name = one(values, "name");
      if (!name) throw new UsageError("clients register: --name is required");
      const uris = many(values, "redirect-uri").map(redirectUri);
      if (uris.length === 0) throw new UsageError("clients register: at least one --redirect-uri is required");
      const { clientSecret, client } = await createClient(ctx.deps(), {
        clientId: clientId(id as string),
        name,
        redirectUris: [...new Set(uris)],
        postLogoutRedirectUris: [...new Set(many(values, "post-logout-redirect-uri").map(redirectUri))],
        backchannelLogoutUri: backchannelUri(ctx, one(values, "backchannel-logout-uri") ?? "none"),
        pkce: pkce(one(values, "pkce")),
        grantTypes: ["authorization_code", ...(values["refresh-tokens"] === true ? ["refresh_token"] : [])],
        project: neededProject(one(values, "needs-project") ?? "none"),
      });
      ctx.print(`client_id: ${client.clientId}\nclient_secret: ${clientSecret}`, {
        client: view(client),
        clientSecret,
      });
      ctx.note(secretNote);
    },
  },
  {
    name: "clients add-redirect",
    audited: true,
    summary: "allow one more redirect URI (matched exactly)",
    usage: "clients add-redirect <client_id> <uri>",
    positionals: [2, 2],
    backend,
    async run(ctx, [id, uri]) {
      changed(ctx, await addRedirectUri(ctx.deps(), clientId(id as string), redirectUri(uri as string)));
    },
  },
  {
    name: "clients remove-redirect",
    audited: true,
    summary: "stop allowing a redirect URI (asks first)",
    usage: "clients remove-redirect <client_id> <uri> [--yes]",
    positionals: [2, 2],
    backend,
    async run(ctx, [id, uri]) {
      await ctx.confirm(`Stop ${id as string} from redirecting to ${uri as string}?`);
      changed(ctx, await removeRedirectUri(ctx.deps(), clientId(id as string), uri as string));
    },
  },
  {
    name: "clients add-post-logout",
    audited: true,
    summary: "allow one more address to return to after RP-initiated logout (matched exactly)",
    usage: "clients add-post-logout <client_id> <uri>",
    positionals: [2, 2],
    backend,
    async run(ctx, [id, uri]) {
      changed(ctx, await addPostLogoutRedirectUri(ctx.deps(), clientId(id as string), redirectUri(uri as string)));
    },
  },
  {
    name: "clients remove-post-logout",
    audited: true,
    summary: "stop returning to an address after logout",
    usage: "clients remove-post-logout <client_id> <uri>",
    positionals: [2, 2],
    backend,
    async run(ctx, [id, uri]) {
      changed(ctx, await removePostLogoutRedirectUri(ctx.deps(), clientId(id as string), uri as string));
    },
  },
  {
    name: "clients set-backchannel",
    audited: true,
    summary: "where the provider posts a logout token when a sign-in to the client ends; none for nowhere",
    usage: "clients set-backchannel <client_id> <https uri>|none",
    positionals: [2, 2],
    backend,
    async run(ctx, [id, uri]) {
      changed(
        ctx,
        await setBackchannelLogoutUri(ctx.deps(), clientId(id as string), backchannelUri(ctx, uri as string)),
      );
    },
  },
  {
    name: "clients set-pkce",
    audited: true,
    summary: "require PKCE of a client, or let it omit the challenge",
    usage: "clients set-pkce <client_id> required|optional",
    positionals: [2, 2],
    backend,
    async run(ctx, [id, policy]) {
      if (policy !== "required" && policy !== "optional")
        throw new UsageError('set-pkce takes "required" or "optional"');
      changed(ctx, await setPkcePolicy(ctx.deps(), clientId(id as string), policy));
    },
  },
  {
    name: "clients set-refresh-tokens",
    audited: true,
    summary: "let a client hold refresh tokens, or take them away (its grants end at their next use)",
    usage: "clients set-refresh-tokens <client_id> on|off [--yes]",
    positionals: [2, 2],
    backend,
    async run(ctx, [id, setting]) {
      if (setting !== "on" && setting !== "off") throw new UsageError('set-refresh-tokens takes "on" or "off"');
      if (setting === "off")
        await ctx.confirm(`Take refresh tokens from ${id as string}? Every grant it holds ends at its next refresh.`);
      changed(ctx, await setRefreshTokens(ctx.deps(), clientId(id as string), setting === "on"));
    },
  },
  {
    name: "clients set-project",
    audited: true,
    summary: "let only people granted a project sign in to a client (none: any approved person)",
    usage: "clients set-project <client_id> <project>|none",
    positionals: [2, 2],
    backend,
    async run(ctx, [id, project]) {
      changed(ctx, await setClientProject(ctx.deps(), clientId(id as string), neededProject(project as string)));
      ctx.note(
        "People signed in to it already keep their sign-in until it ends; their refresh tokens stop at their next use.",
      );
    },
  },
  {
    name: "clients rotate-secret",
    audited: true,
    summary: "a new secret, printed once; the old ones keep working for the overlap (default 24h)",
    usage: "clients rotate-secret <client_id> [--overlap <duration, e.g. 24h, 30m, 0s: asks first>] [--yes]",
    options: { overlap: { type: "string" } },
    positionals: [1, 1],
    backend,
    async run(ctx, [id], values) {
      const overlap = one(values, "overlap");
      const overlapMs = overlap === undefined ? DEFAULT_ROTATION_OVERLAP_MS : parseDuration(overlap);
      if (overlapMs === 0) await ctx.confirm(`End every current secret of ${id as string} now?`);
      const { clientSecret, client } = await rotateSecret(ctx.deps(), clientId(id as string), overlapMs);
      ctx.print(`client_id: ${client.clientId}\nclient_secret: ${clientSecret}`, {
        client: view(client),
        clientSecret,
      });
      ctx.note(
        `${secretNote} The previous secret(s) work until ${new Date(ctx.deps().clock.now().getTime() + overlapMs).toISOString()}.`,
      );
    },
  },
  {
    name: "clients disable",
    audited: true,
    summary: "make a client unknown to the authorise and token endpoints (asks first)",
    usage: "clients disable <client_id> [--yes]",
    positionals: [1, 1],
    backend,
    async run(ctx, [id]) {
      await ctx.confirm(`Disable ${id as string}? Its sign-ins and token requests stop.`);
      changed(ctx, await disableClient(ctx.deps(), clientId(id as string)));
    },
  },
  {
    name: "clients enable",
    audited: true,
    summary: "make a disabled client known again, as it was registered",
    usage: "clients enable <client_id>",
    positionals: [1, 1],
    backend,
    async run(ctx, [id]) {
      changed(ctx, await enableClient(ctx.deps(), clientId(id as string)));
    },
  },
  {
    name: "clients approve",
    audited: true,
    summary: "let a client that registered itself be used (waiting or blocked → approved)",
    usage: "clients approve <client_id>",
    positionals: [1, 1],
    backend,
    async run(ctx, [id]) {
      reviewed(ctx, await reviewClient(ctx.deps(), clientId(id as string), "approved", ctx.actor()));
    },
  },
  {
    name: "clients block",
    audited: true,
    summary: "make a client that registered itself unknown to every endpoint, as disable does (asks first)",
    usage: "clients block <client_id> [--yes]",
    positionals: [1, 1],
    backend,
    async run(ctx, [id]) {
      await ctx.confirm(`Block ${id as string}? Its sign-ins, tokens and refresh tokens stop working.`);
      reviewed(ctx, await reviewClient(ctx.deps(), clientId(id as string), "blocked", ctx.actor()));
    },
  },
  {
    name: "clients remove",
    audited: true,
    summary:
      "delete a client that registered itself, with the consents, grants, tokens and codes it holds (asks first)",
    usage: "clients remove <client_id> [--yes]",
    positionals: [1, 1],
    backend,
    async run(ctx, [id]) {
      const target = clientId(id as string);
      await ctx.confirm(
        `Remove ${target}? It is deleted with every consent, grant, token and code it holds; it could only register again.`,
      );
      const { client, removed } = await removeClient(ctx.deps(), target);
      const lines = [
        `removed client: ${client.clientId} (${client.name})`,
        `consents: ${removed.consents}`,
        `grants: ${removed.grants} (refresh tokens: ${removed.refreshTokens})`,
        `access tokens: ${removed.accessTokens}`,
        `codes: ${removed.codes}`,
        `sign-ins: ${removed.signIns}`,
        `disconnects remembered: ${removed.disconnects}`,
      ];
      ctx.print(lines.join("\n"), { removed: { client: view(client), ...removed } });
      ctx.note("Instances that have the client cached stop serving it within 30 seconds.");
    },
  },
  {
    name: "clients list",
    summary: "every registered client",
    usage: "clients list",
    positionals: [0, 0],
    backend,
    async run(ctx) {
      const all = await listClients(ctx.deps());
      ctx.print(table(all, columns, "(no clients)"), all.map(view));
    },
  },
  {
    name: "clients show",
    summary: "one client: redirect URIs, PKCE policy, secrets' dates (never the secrets)",
    usage: "clients show <client_id>",
    positionals: [1, 1],
    backend,
    async run(ctx, [id]) {
      const client = await showClient(ctx.deps(), clientId(id as string));
      if (!client) throw unknownClient(id as string);
      ctx.print(describe(client), view(client));
    },
  },
];
