/** `api-keys …`: the keys of POST /startpage/notify, stored as their hashes only. */
import {
  API_KEY_ID_LENGTH,
  apiKeyId,
  issueApiKey,
  listApiKeys,
  revokeApiKey,
  revokeApiKeyById,
} from "../../core/startpage/api-keys";
import type { ApiKey } from "../../store/api-keys";
import { one, type Command } from "../cli";
import { table } from "../output";
import { Refusal, UsageError } from "../refusals";

function view(k: ApiKey) {
  return {
    id: apiKeyId(k),
    prefix: k.prefix,
    label: k.label,
    createdAt: k.createdAt.toISOString(),
    revokedAt: k.revokedAt?.toISOString() ?? null,
  };
}

type View = ReturnType<typeof view>;

const columns = [
  { header: "ID", value: (k: View) => k.id },
  { header: "PREFIX", value: (k: View) => k.prefix },
  { header: "CREATED", value: (k: View) => k.createdAt },
  { header: "REVOKED", value: (k: View) => k.revokedAt ?? "-" },
  { header: "LABEL", value: (k: View) => k.label },
];

const backend = true;

export const apiKeyCommands: Command[] = [
  {
    name: "api-keys issue",
    audited: true,
    summary: "a new API key, printed once; only its hash is stored",
    usage: "api-keys issue <label>",
    positionals: [1, 1],
    backend,
    async run(ctx, [label]) {
      if ((label as string).trim() === "") throw new UsageError("api-keys issue: the label is empty");
      const { key, prefix, id } = await issueApiKey(ctx.deps(), label as string);
      ctx.print(`key: ${key}\nid: ${id}\nprefix: ${prefix}`, { key, id, prefix, label });
      ctx.note(`The key is shown this once; only its hash is stored. Revoke it with: api-keys revoke ${id}`);
    },
  },
  {
    name: "api-keys list",
    summary: "ids, prefixes, labels and dates (never keys)",
    usage: "api-keys list [--prefix <prefix>]",
    options: { prefix: { type: "string" } },
    positionals: [0, 0],
    backend,
    async run(ctx, _args, values) {
      const keys = (await listApiKeys(ctx.deps(), one(values, "prefix"))).map(view);
      ctx.print(table(keys, columns, "(no keys)"), keys);
    },
  },
  {
    name: "api-keys revoke",
    audited: true,
    summary: "revoke a key by its id (or every live key with a prefix); asks first",
    usage: "api-keys revoke <id> [--yes] | api-keys revoke --prefix <prefix> [--yes]",
    options: { prefix: { type: "string" } },
    positionals: [0, 1],
    backend,
    async run(ctx, [id], values) {
      const prefix = one(values, "prefix");
      if ((id === undefined) === (prefix === undefined))
        throw new UsageError("api-keys revoke: give a key's id (api-keys list shows them) or --prefix <prefix>");
      if (prefix !== undefined) {
        await ctx.confirm(`Revoke every live API key with the prefix ${prefix}?`);
        const revoked = await revokeApiKey(ctx.deps(), prefix);
        if (revoked === 0) throw new Refusal(`no live API key has the prefix ${prefix}`);
        ctx.print(`revoked ${revoked} key(s)`, { revoked });
        return;
      }
      if (!new RegExp(`^[0-9a-f]{${API_KEY_ID_LENGTH}}$`).test(id as string))
        throw new UsageError(
          `"${id as string}" is not a key id (${API_KEY_ID_LENGTH} hex digits, from api-keys list); a prefix goes with --prefix`,
        );
      await ctx.confirm(`Revoke the API key ${id as string}?`);
      const key = await revokeApiKeyById(ctx.deps(), id as string);
      if (key === null) throw new Refusal(`no API key has the id ${id as string}`);
      ctx.print(`revoked: ${key.label} (${apiKeyId(key)}, prefix ${key.prefix})`, { revoked: 1, key: view(key) });
    },
  },
];
