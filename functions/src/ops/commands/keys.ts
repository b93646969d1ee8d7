/**
 * `keys …`: the next value of the session-signing keys and of the code pepper, in the order of
 * docs/operating.md: a session key is published (second in the ring) before it signs (first); a
 * pepper key is retired only once no app's signing secret (`hooks reseal`) and no waiting mail is
 * sealed under it.
 */
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { systemClock } from "../../clock";
import { appsSealedUnder } from "../../core/events/hooks";
import { waitingSealedUnder } from "../../core/outbox/enqueue";
import { recoveryCodesKeyedWith } from "../../core/passkeys/recovery-codes";
import { parsePepper } from "../../core/pepper";
import { parseKeyRing } from "../../core/sessions/session-token";
import { one, type Command, type Values } from "../cli";
import type { Context } from "../context";
import { Refusal, UsageError } from "../refusals";
import { currentValue, reloadLocalFunctions, setLocalSecret, within, writePrivately } from "../secret-values";

type Name = "SESSION_KEYS" | "CODE_PEPPER";
type Jwk = { kid: string; [key: string]: unknown };

function kidNow(prefix: string): string {
  const day = systemClock.now().toISOString().slice(0, 10).replaceAll("-", "");
  return `${prefix}-${day}-${randomBytes(3).toString("hex")}`;
}

/** The current SESSION_KEYS, checked as the functions check it, as its list of private JWKs. */
function currentSessionKeys(ctx: Context, values: Values): Jwk[] {
  const raw = currentValue(ctx, "SESSION_KEYS", one(values, "from-file"));
  parseKeyRing(raw);
  return JSON.parse(raw) as Jwk[];
}

/** The current ring and its key `kid`: a usage error when the ring has none by that name. */
function keyIn(ctx: Context, values: Values, kid: string): { current: Jwk[]; key: Jwk } {
  const current = currentSessionKeys(ctx, values);
  const key = current.find((k) => k.kid === kid);
  if (!key) throw new UsageError(`SESSION_KEYS has no key ${kid}`);
  return { current, key };
}

const publicKids = async (ctx: Context): Promise<string[]> => {
  const res = await fetch(`${ctx.target.stack?.urls.service}/auth/oidc/jwks`, { signal: AbortSignal.timeout(5_000) });
  return ((await res.json()) as { keys: Array<{ kid: string }> }).keys.map((k) => k.kid);
};

/**
 * The next value goes where asked: into the running local stack (--apply), a private file
 * (--out), or stdout; then what to do next, and when it takes effect.
 */
async function hand(ctx: Context, values: Values, name: Name, value: string, kid: string, then: string) {
  const out = one(values, "out");
  const command = `npx firebase functions:secrets:set ${name} --project ${ctx.target.projectId} --data-file ${out ?? "<file>"}`;
  if (values.apply === true) {
    if (!ctx.target.emulators) throw new UsageError(`--apply changes the local stack only; in production: ${command}`);
    setLocalSecret(name, value);
    await reloadLocalFunctions(ctx);
    const jwks = `${ctx.target.stack?.urls.service}/auth/oidc/jwks`;
    const published =
      name === "SESSION_KEYS" ? await within(30_000, async () => (await publicKids(ctx)).includes(kid)) : null;
    const effect =
      name !== "SESSION_KEYS"
        ? "the local functions use it from their next request"
        : published === null
          ? `the local functions read it at their next request (${jwks} did not show ${kid} within 30 s)`
          : `the local functions use it now: ${jwks} showed it after ${published} s`;
    ctx.print(`${name} set in functions/.secret.local; ${effect}.`, { name, kid, applied: true, effect, then });
    ctx.note(then);
    return;
  }
  if (out !== undefined) writePrivately(out, value + "\n");
  ctx.print(out === undefined ? value : `${name}: written to ${out}`, {
    name,
    kid,
    ...(out === undefined ? { value } : { out }),
    command,
    then,
  });
  const set = ctx.target.emulators
    ? "Apply it to the running local stack with --apply."
    : `Set it with:\n  ${command}\nthen deploy the functions that read ${name} (npx firebase deploy --only functions --project ${ctx.target.projectId}).`;
  ctx.note(`\n${set}\n${then}`);
}

const options = {
  "from-file": { type: "string" as const },
  out: { type: "string" as const },
  apply: { type: "boolean" as const },
};
const where = "[--from-file <current value>] [--out <file> | --apply]";

export const keyCommands: Command[] = [
  {
    name: "keys rotate-session-key",
    audited: true,
    summary: "SESSION_KEYS with a fresh RSA-2048 key second: published, not yet signing",
    usage: `keys rotate-session-key ${where}`,
    options,
    positionals: [0, 0],
    async run(ctx, _args, values) {
      const [signing, ...rest] = currentSessionKeys(ctx, values);
      const kid = kidNow("session");
      const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
      const jwk = { ...privateKey.export({ format: "jwk" }), kid, alg: "RS256" };
      const then =
        `The new key (kid ${kid}) is published at /auth/oidc/jwks and verifies, but signs nothing yet. Relying parties ` +
        `cache the key set for 5 minutes: 5 minutes or more after it is in place, make it sign with ` +
        `\`keys promote-session-key ${kid}\`, and 14 days after that retire ${signing?.kid} (keys retire-session-key).`;
      await hand(ctx, values, "SESSION_KEYS", JSON.stringify([signing, jwk, ...rest]), kid, then);
    },
  },
  {
    name: "keys promote-session-key",
    audited: true,
    summary: "SESSION_KEYS with a published key moved first: it signs from then on",
    usage: `keys promote-session-key <kid> ${where}`,
    options,
    positionals: [1, 1],
    async run(ctx, [kid], values) {
      const { current, key } = keyIn(ctx, values, kid as string);
      if (current[0] === key) throw new UsageError(`${key.kid} already signs`);
      const others = current.filter((k) => k !== key);
      const then = `${key.kid} signs new session and ID tokens; ${others.map((k) => k.kid).join(", ")} only verify. Sessions live 14 days: retire the old key(s) 14 days after this is in place (keys retire-session-key <kid>).`;
      await hand(ctx, values, "SESSION_KEYS", JSON.stringify([key, ...others]), key.kid, then);
    },
  },
  {
    name: "keys retire-session-key",
    audited: true,
    summary: "SESSION_KEYS without one key (never the signing one)",
    usage: `keys retire-session-key <kid> ${where}`,
    options,
    positionals: [1, 1],
    async run(ctx, [kid], values) {
      const { current, key } = keyIn(ctx, values, kid as string);
      if (current[0] === key) throw new UsageError(`${key.kid} is the signing key; promote another first`);
      if (values.apply === true) await ctx.confirm(`Retire ${key.kid}? Sessions it signed stop verifying.`);
      const then = `Sessions signed with ${key.kid} stop verifying once this is in place.`;
      await hand(ctx, values, "SESSION_KEYS", JSON.stringify(current.filter((k) => k !== key)), key.kid, then);
    },
  },
  {
    name: "keys rotate-code-pepper",
    audited: true,
    summary: "CODE_PEPPER with a fresh key first: it hashes new codes, the old ones still verify",
    usage: `keys rotate-code-pepper ${where}`,
    options,
    positionals: [0, 0],
    async run(ctx, _args, values) {
      const current = parsePepper(currentValue(ctx, "CODE_PEPPER", one(values, "from-file")));
      const kid = kidNow("pepper");
      const next = [{ kid, secret: randomBytes(32).toString("base64url") }, ...current];
      const then = `The new key (kid ${kid}) hashes new codes once it is in place; the old ones still verify. Codes live 10 minutes and send records 24 hours: retire an old key (keys retire-code-pepper <kid>) 24 hours after.`;
      await hand(ctx, values, "CODE_PEPPER", next.map((k) => `${k.kid}:${k.secret}`).join(","), kid, then);
    },
  },
  {
    name: "keys retire-code-pepper",
    audited: true,
    summary: "CODE_PEPPER without one key (never the first, nor one an app's secret or a waiting mail is sealed under)",
    usage: `keys retire-code-pepper <kid> ${where}`,
    options,
    positionals: [1, 1],
    // It reads the subscriptions and the outbox (never what they seal) to see nothing is sealed under the key.
    backend: true,
    async run(ctx, [kid], values) {
      const current = parsePepper(currentValue(ctx, "CODE_PEPPER", one(values, "from-file")));
      if (!current.some((k) => k.kid === kid)) throw new UsageError(`CODE_PEPPER has no key ${kid as string}`);
      if (current[0]?.kid === kid)
        throw new UsageError(`${kid as string} is the key new codes are hashed with; rotate first`);
      const sealed = await appsSealedUnder(ctx.deps(), kid as string);
      if (sealed.length > 0)
        throw new Refusal(
          `the signing secrets of ${sealed.join(", ")} are sealed under ${kid as string}, and would stop opening: with the new key first in place, run \`hooks reseal\`${ctx.target.emulators ? "" : " --from-file <it>"}, then retire ${kid as string}`,
        );
      const waiting = await waitingSealedUnder(ctx.deps(), kid as string);
      if (waiting > 0)
        throw new Refusal(
          `${waiting} mail(s) or deliveries waiting in the outbox are sealed under ${kid as string}, and would be given up: retire it once they are sent (a day after the rotation at most)`,
        );
      const recovery = await recoveryCodesKeyedWith(ctx.deps(), kid as string);
      if (recovery > 0)
        throw new Refusal(
          `the recovery codes of ${recovery} person(s) are keyed with ${kid as string}, and would stop working: each makes new ones on their account page (after a passkey sign-in), or \`passkey-rule clear <who>\` ends them; then retire ${kid as string}`,
        );
      if (values.apply === true) await ctx.confirm(`Retire ${kid as string}? Codes keyed with it stop matching.`);
      const next = current.filter((k) => k.kid !== kid).map((k) => `${k.kid}:${k.secret}`);
      const then = `Codes and send records keyed with ${kid as string} are no longer recognised once this is in place.`;
      await hand(ctx, values, "CODE_PEPPER", next.join(","), kid as string, then);
    },
  },
];
