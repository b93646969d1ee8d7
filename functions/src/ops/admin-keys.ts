/** `api-keys …` and `keys …`: API keys in Firestore; the session-signing keys and the code pepper as secrets. */
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parsePepper } from "../core/email-codes/code-pepper";
import { issueApiKey, listApiKeys, revokeApiKey } from "../core/startpage/api-keys";
import { parseKeyRing } from "../core/sessions/session-token";
import { UsageError, one, type Command, type Context } from "./cli";

export const apiKeyCommands: Command[] = [
  {
    name: "api-keys issue",
    summary: "a new API key, printed once; only its hash is stored",
    usage: "api-keys issue <label>",
    positionals: [1, 1],
    async run(ctx, [label]) {
      if ((label as string).trim() === "") throw new UsageError("api-keys issue: the label is empty");
      const { key, prefix } = await issueApiKey(ctx.deps(), label as string);
      ctx.print(`key: ${key}\nprefix: ${prefix}`, { key, prefix, label });
      ctx.note("The key is shown this once; only its hash is stored.");
    },
  },
  {
    name: "api-keys list",
    summary: "prefixes, labels and dates (never keys)",
    usage: "api-keys list [--prefix <prefix>]",
    options: { prefix: { type: "string" } },
    positionals: [0, 0],
    async run(ctx, _args, values) {
      const keys = await listApiKeys(ctx.deps(), one(values, "prefix"));
      const view = keys.map((k) => ({
        prefix: k.prefix,
        label: k.label,
        createdAt: k.createdAt.toISOString(),
        revokedAt: k.revokedAt?.toISOString() ?? null,
      }));
      ctx.print(
        view.length === 0
          ? "(no keys)"
          : view
              .map(
                (k) =>
                  `${k.prefix}  ${k.label}  created ${k.createdAt}${k.revokedAt ? `  revoked ${k.revokedAt}` : ""}`,
              )
              .join("\n"),
        view,
      );
    },
  },
  {
    name: "api-keys revoke",
    summary: "revoke the live keys with a prefix",
    usage: "api-keys revoke <prefix>",
    positionals: [1, 1],
    async run(ctx, [prefix]) {
      const revoked = await revokeApiKey(ctx.deps(), prefix as string);
      if (revoked === 0) throw new Error(`no live API key has the prefix ${prefix as string}`);
      ctx.print(`revoked ${revoked} key(s)`, { revoked });
    },
  },
];

/** functions/.secret.local, where the local stack keeps its secrets (lib/ops → functions). */
const LOCAL_SECRETS = join(__dirname, "..", "..", ".secret.local");

/**
 * The secret's current value: from --from-file (the bare value, or a .secret.local-style file
 * with a NAME= line), or, against the emulators, from functions/.secret.local.
 */
function currentValue(ctx: Context, name: string, values: Record<string, unknown>): string {
  const file = one(values, "from-file") ?? (ctx.target.emulators ? LOCAL_SECRETS : undefined);
  if (file === undefined)
    throw new UsageError(
      `give the current ${name} with --from-file <file> (e.g. firebase functions:secrets:access ${name} --project ${ctx.target.projectId} > current.txt)`,
    );
  if (!existsSync(file)) throw new UsageError(`${file} does not exist`);
  const text = readFileSync(file, "utf8");
  const line = text.split("\n").find((l) => l.startsWith(`${name}=`));
  const raw = line === undefined ? text.trim() : line.slice(name.length + 1).trim();
  // .secret.local quotes values that hold JSON.
  return /^'.*'$/s.test(raw) || /^".*"$/s.test(raw) ? raw.slice(1, -1) : raw;
}

function kidNow(ctx: Context, prefix: string): string {
  const day = ctx.deps().clock.now().toISOString().slice(0, 10).replaceAll("-", "");
  return `${prefix}-${day}-${randomBytes(3).toString("hex")}`;
}

/** Prints the new value alone on stdout (or JSON), and what to do with it on stderr. */
function hand(ctx: Context, name: string, value: string, kid: string, retire: string): void {
  const command = `firebase functions:secrets:set ${name} --project ${ctx.target.projectId} --data-file <file holding the value>`;
  ctx.print(value, { name, kid, value, command, retire });
  ctx.note(`\nSet it in production with:\n  ${command}\nthen redeploy the functions that read ${name}.\n${retire}`);
}

/** The current SESSION_KEYS, checked as the functions check it, as its list of private JWKs. */
function currentSessionKeys(ctx: Context, values: Record<string, unknown>): Array<{ kid: string }> {
  const raw = currentValue(ctx, "SESSION_KEYS", values);
  parseKeyRing(raw);
  return JSON.parse(raw) as Array<{ kid: string }>;
}

const fromFile = { "from-file": { type: "string" as const } };

export const secretCommands: Command[] = [
  {
    name: "keys rotate-session-key",
    summary: "a new SESSION_KEYS value: a fresh RSA-2048 signing key first, the current keys after",
    usage: "keys rotate-session-key [--from-file <file with the current SESSION_KEYS>]",
    options: fromFile,
    positionals: [0, 0],
    async run(ctx, _args, values) {
      const current = currentSessionKeys(ctx, values);
      const kid = kidNow(ctx, "session");
      const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
      const jwk = { ...privateKey.export({ format: "jwk" }), kid, alg: "RS256" };
      const next = JSON.stringify([jwk, ...current]);
      hand(
        ctx,
        "SESSION_KEYS",
        next,
        kid,
        `The new key (kid ${kid}) signs from the deploy on; the old ones only verify. Sessions live 14 days: retire an old key (keys retire-session-key <kid>) 14 days after this deploy.`,
      );
    },
  },
  {
    name: "keys retire-session-key",
    summary: "the SESSION_KEYS value without one key (never the signing one)",
    usage: "keys retire-session-key <kid> [--from-file <file>]",
    options: fromFile,
    positionals: [1, 1],
    async run(ctx, [kid], values) {
      const current = currentSessionKeys(ctx, values);
      if (!current.some((k) => k.kid === kid)) throw new UsageError(`SESSION_KEYS has no key ${kid as string}`);
      if (current[0]?.kid === kid) throw new UsageError(`${kid as string} is the signing key; rotate first`);
      hand(
        ctx,
        "SESSION_KEYS",
        JSON.stringify(current.filter((k) => k.kid !== kid)),
        kid as string,
        `Sessions signed with ${kid as string} stop verifying once this is deployed.`,
      );
    },
  },
  {
    name: "keys rotate-code-pepper",
    summary: "a new CODE_PEPPER value: a fresh key first, the current ones after",
    usage: "keys rotate-code-pepper [--from-file <file with the current CODE_PEPPER>]",
    options: fromFile,
    positionals: [0, 0],
    async run(ctx, _args, values) {
      const current = parsePepper(currentValue(ctx, "CODE_PEPPER", values));
      const kid = kidNow(ctx, "pepper");
      const next = [{ kid, secret: randomBytes(32).toString("base64url") }, ...current]
        .map((k) => `${k.kid}:${k.secret}`)
        .join(",");
      hand(
        ctx,
        "CODE_PEPPER",
        next,
        kid,
        `The new key (kid ${kid}) hashes new codes from the deploy on; the old ones still verify. Codes live 10 minutes and send records 24 hours: retire an old key (keys retire-code-pepper <kid>) 24 hours after this deploy.`,
      );
    },
  },
  {
    name: "keys retire-code-pepper",
    summary: "the CODE_PEPPER value without one key (never the first)",
    usage: "keys retire-code-pepper <kid> [--from-file <file>]",
    options: fromFile,
    positionals: [1, 1],
    async run(ctx, [kid], values) {
      const current = parsePepper(currentValue(ctx, "CODE_PEPPER", values));
      if (!current.some((k) => k.kid === kid)) throw new UsageError(`CODE_PEPPER has no key ${kid as string}`);
      if (current[0]?.kid === kid)
        throw new UsageError(`${kid as string} is the key new codes are hashed with; rotate first`);
      const next = current
        .filter((k) => k.kid !== kid)
        .map((k) => `${k.kid}:${k.secret}`)
        .join(",");
      hand(
        ctx,
        "CODE_PEPPER",
        next,
        kid as string,
        `Codes and send records keyed with ${kid as string} are no longer recognised once this is deployed.`,
      );
    },
  },
];
