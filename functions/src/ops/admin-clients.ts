/** `clients …`: OpenID Connect relying parties, through core/oidc/clients. */
import {
  DEFAULT_ROTATION_OVERLAP_MS,
  addRedirectUri,
  createClient,
  disableClient,
  isClientId,
  isRedirectUri,
  listClients,
  removeRedirectUri,
  rotateSecret,
  setPkcePolicy,
  showClient,
  UnknownClientError,
} from "../core/oidc/clients";
import type { OidcClient, PkcePolicy } from "../store/oidc-clients";
import { UsageError, many, one, parseDuration, type Command } from "./cli";

function view(c: OidcClient) {
  return {
    clientId: c.clientId,
    name: c.name,
    redirectUris: c.redirectUris,
    pkce: c.pkce,
    disabled: c.disabled,
    // Never the hashes: when each secret was made and until when it works.
    secrets: c.secrets.map((s) => ({
      createdAt: s.createdAt.toISOString(),
      expiresAt: s.expiresAt?.toISOString() ?? null,
    })),
    createdAt: c.createdAt.toISOString(),
  };
}

const line = (c: OidcClient) =>
  `${c.clientId}  ${c.disabled ? "disabled" : "enabled"}  pkce ${c.pkce}  ${c.secrets.length} secret(s)  ${c.name}`;

function describe(c: OidcClient): string {
  const v = view(c);
  return [
    `clientId: ${v.clientId}`,
    `name: ${v.name}`,
    `status: ${v.disabled ? "disabled" : "enabled"}`,
    `pkce: ${v.pkce}`,
    ...v.redirectUris.map((u) => `redirect URI: ${u}`),
    ...v.secrets.map((s) => `secret: made ${s.createdAt}${s.expiresAt ? `, works until ${s.expiresAt}` : ""}`),
    `created: ${v.createdAt}`,
  ].join("\n");
}

function clientId(value: string): string {
  if (!isClientId(value)) throw new UsageError(`"${value}" is not a client id (1-128 of A-Z a-z 0-9 . _ ~ -)`);
  return value;
}

function redirectUri(value: string): string {
  if (!isRedirectUri(value))
    throw new UsageError(`"${value}" is not a redirect URI (absolute https, or http on loopback; no fragment)`);
  return value;
}

function pkce(value: string | undefined): PkcePolicy {
  if (value === undefined || value === "required") return "required";
  if (value === "optional") return "optional";
  throw new UsageError(`PKCE must be "required" or "optional", not "${value}"`);
}

const secretNote =
  "The secret is shown this once; only its hash is stored. The client authenticates at /auth/oidc/token with it.";

export const clientCommands: Command[] = [
  {
    name: "clients register",
    summary: "register a relying party; prints its generated secret once",
    usage:
      "clients register <client_id> --name <name> --redirect-uri <uri> [--redirect-uri <uri>...] [--pkce required|optional]",
    options: { name: { type: "string" }, "redirect-uri": { type: "string", multiple: true }, pkce: { type: "string" } },
    positionals: [1, 1],
    async run(ctx, [id], values) {
      const name = one(values, "name");
      if (!name) throw new UsageError("clients register: --name is required");
      const uris = many(values, "redirect-uri").map(redirectUri);
      if (uris.length === 0) throw new UsageError("clients register: at least one --redirect-uri is required");
      const { clientSecret, client } = await createClient(ctx.deps(), {
        clientId: clientId(id as string),
        name,
        redirectUris: [...new Set(uris)],
        pkce: pkce(one(values, "pkce")),
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
    summary: "allow one more redirect URI (matched exactly)",
    usage: "clients add-redirect <client_id> <uri>",
    positionals: [2, 2],
    async run(ctx, [id, uri]) {
      const client = await addRedirectUri(ctx.deps(), clientId(id as string), redirectUri(uri as string));
      ctx.print(describe(client), view(client));
    },
  },
  {
    name: "clients remove-redirect",
    summary: "stop allowing a redirect URI",
    usage: "clients remove-redirect <client_id> <uri>",
    positionals: [2, 2],
    async run(ctx, [id, uri]) {
      const client = await removeRedirectUri(ctx.deps(), clientId(id as string), uri as string);
      ctx.print(describe(client), view(client));
    },
  },
  {
    name: "clients set-pkce",
    summary: "require PKCE of a client, or let it omit the challenge",
    usage: "clients set-pkce <client_id> required|optional",
    positionals: [2, 2],
    async run(ctx, [id, policy]) {
      if (policy !== "required" && policy !== "optional")
        throw new UsageError('set-pkce takes "required" or "optional"');
      const client = await setPkcePolicy(ctx.deps(), clientId(id as string), policy);
      ctx.print(describe(client), view(client));
    },
  },
  {
    name: "clients rotate-secret",
    summary: "a new secret, printed once; the old ones keep working for the overlap (default 24h)",
    usage: "clients rotate-secret <client_id> [--overlap <duration, e.g. 24h, 30m, 0s>]",
    options: { overlap: { type: "string" } },
    positionals: [1, 1],
    async run(ctx, [id], values) {
      const overlap = one(values, "overlap");
      const overlapMs = overlap === undefined ? DEFAULT_ROTATION_OVERLAP_MS : parseDuration(overlap);
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
    summary: "make a client unknown to the authorise and token endpoints",
    usage: "clients disable <client_id>",
    positionals: [1, 1],
    async run(ctx, [id]) {
      const client = await disableClient(ctx.deps(), clientId(id as string));
      ctx.print(describe(client), view(client));
      ctx.note("Instances that have the client cached stop accepting it within 30 seconds.");
    },
  },
  {
    name: "clients list",
    summary: "every registered client",
    usage: "clients list",
    positionals: [0, 0],
    async run(ctx) {
      const all = await listClients(ctx.deps());
      ctx.print(all.length === 0 ? "(no clients)" : all.map(line).join("\n"), all.map(view));
    },
  },
  {
    name: "clients show",
    summary: "one client: redirect URIs, PKCE policy, secrets' dates (never the secrets)",
    usage: "clients show <client_id>",
    positionals: [1, 1],
    async run(ctx, [id]) {
      const client = await showClient(ctx.deps(), clientId(id as string));
      if (!client) throw new UnknownClientError(id as string);
      ctx.print(describe(client), view(client));
    },
  },
];
