/**
 * `passkey-rule …`: the rule that administrators act only from a passkey sign-in (core/people/acting):
 * how it stands, and the operator's word on which roles it holds.
 */
import {
  clearPasskeysAndCodes,
  liftPasskeyRule,
  restorePasskeyRule,
  ruleInForce,
  setPasskeyRoles,
  type RuleInForce,
} from "../../core/people/passkey-rule";
import { LIFT_MAX_HOURS } from "../../core/model/passkey-rule";
import type { Role } from "../../core/model/person";
import { one, type Command } from "../cli";
import { UsageError } from "../refusals";
import { named, view } from "./person-text";

/** The roles the rule can hold: those with powers over others. */
const RULED_ROLES: readonly Role[] = ["admin"];

export function ruleText(r: RuleInForce, now: Date): string {
  const whose =
    r.source === "operator"
      ? `the operator's word (${r.setBy ?? "?"}, ${r.setAt?.toISOString() ?? "?"})`
      : "the deployment's PASSKEY_ROLES";
  const lines = [
    r.rule.roles.length === 0
      ? `passkey rule: off (${whose}): administrators act from any sign-in`
      : `passkey rule: on for ${r.rule.roles.join(", ")} (${whose}): they act in that role only from a passkey sign-in`,
  ];
  const lifts = Object.entries(r.rule.lifts).filter(([, l]) => l.until.getTime() > now.getTime());
  for (const [personId, lift] of lifts)
    lines.push(
      `  lifted for ${personId} until ${lift.until.toISOString()} (by ${lift.by}, at ${lift.at.toISOString()})`,
    );
  return lines.join("\n");
}

const who = { usage: "<id|email>", positionals: [1, 1] as [number, number] };
const TOLD = "Written to their history, and mailed to them and to every other administrator.";

const json = (r: RuleInForce) => ({
  roles: r.rule.roles,
  on: r.rule.roles.length > 0,
  source: r.source,
  setBy: r.setBy,
  setAt: r.setAt?.toISOString() ?? null,
  lifts: Object.fromEntries(
    Object.entries(r.rule.lifts).map(([id, l]) => [
      id,
      { until: l.until.toISOString(), at: l.at.toISOString(), by: l.by },
    ]),
  ),
});

export const passkeyRuleCommands: Command[] = [
  {
    name: "passkey-rule show",
    summary: "whether administrators act only from a passkey sign-in, whose word that is, and for whom it is lifted",
    usage: "passkey-rule show",
    positionals: [0, 0],
    backend: true,
    async run(ctx) {
      const deps = ctx.deps();
      const r = await ruleInForce(deps);
      ctx.print(ruleText(r, deps.clock.now()), json(r));
    },
  },
  {
    name: "passkey-rule set",
    audited: true,
    summary: "hold these roles to passkey sign-ins (admin), or none (off), or default (the deployment's PASSKEY_ROLES)",
    usage: "passkey-rule set <admin|none|default>",
    positionals: [1, 1],
    backend: true,
    async run(ctx, [given]) {
      const word = (given as string).trim().toLowerCase();
      const roles = word === "default" ? null : word === "none" ? [] : word.split(",").map((r) => r.trim() as Role);
      if (roles !== null && roles.some((r) => !RULED_ROLES.includes(r)))
        throw new UsageError(`the rule holds ${RULED_ROLES.join(", ")}; or give none, or default`);
      if (roles !== null && roles.length === 0)
        await ctx.confirm("Turn the passkey rule off? Administrators would act from any sign-in, an email code too.");
      const deps = ctx.deps();
      const r = await setPasskeyRoles(deps, roles === null ? null : [...new Set(roles)], ctx.actor());
      ctx.print(ruleText(r, deps.clock.now()), json(r));
      ctx.note("Every administrators' request and action reads it: it counts at once.");
    },
  },
  {
    name: "passkey-rule lift",
    audited: true,
    summary: "the break-glass: let one person act as an administrator from any sign-in, for a stated time (asks first)",
    usage: `passkey-rule lift <id|email> --minutes <1-${LIFT_MAX_HOURS * 60}> [--yes]`,
    options: { minutes: { type: "string" } },
    positionals: who.positionals,
    backend: true,
    async run(ctx, [id], values) {
      const minutes = Number(one(values, "minutes"));
      if (!Number.isInteger(minutes) || minutes < 1 || minutes > LIFT_MAX_HOURS * 60)
        throw new UsageError(`--minutes must be a whole number from 1 to ${LIFT_MAX_HOURS * 60}`);
      const deps = ctx.deps();
      const person = await ctx.person(id as string);
      await ctx.confirm(
        `Lift the passkey rule for ${named(person)} for ${minutes} minutes? Until then an email code is enough for them to act as an administrator.`,
      );
      const { until } = await liftPasskeyRule(deps, person.id, minutes, ctx.actor());
      ctx.print(`lifted the passkey rule for ${named(person)} until ${until.toISOString()}`, {
        person: view(person),
        until: until.toISOString(),
      });
      ctx.note(`${TOLD} It ends by itself; \`passkey-rule restore\` ends it sooner.`);
    },
  },
  {
    name: "passkey-rule restore",
    audited: true,
    summary: "end a lift of the passkey rule before its time",
    usage: "passkey-rule restore <id|email>",
    positionals: who.positionals,
    backend: true,
    async run(ctx, [id]) {
      const deps = ctx.deps();
      const person = await ctx.person(id as string);
      const ended = await restorePasskeyRule(deps, person.id, ctx.actor());
      ctx.print(
        ended ? `the passkey rule holds ${named(person)} again` : `the rule was not lifted for ${named(person)}`,
        { person: view(person), ended },
      );
    },
  },
  {
    name: "passkey-rule clear",
    audited: true,
    summary:
      "the break-glass: remove a person's passkeys and recovery codes, so an email code may add a first passkey again (asks first)",
    usage: "passkey-rule clear <id|email> [--yes]",
    positionals: who.positionals,
    backend: true,
    async run(ctx, [id]) {
      const deps = ctx.deps();
      const person = await ctx.person(id as string);
      await ctx.confirm(
        `Remove every passkey and recovery code of ${named(person)}? For the next days a sign-in with an email code may add a first passkey to their account.`,
      );
      const done = await clearPasskeysAndCodes(deps, person.id, ctx.actor());
      ctx.print(
        `removed ${done.passkeys} passkey(s) and ${done.codes} unused recovery code(s) of ${named(person)}, and ended the ${done.sessions} session(s) they opened; a first passkey may be added after an email code until ${done.enrolBy.toISOString()}`,
        {
          person: view(person),
          passkeys: done.passkeys,
          codes: done.codes,
          sessions: done.sessions,
          enrolBy: done.enrolBy.toISOString(),
        },
      );
      ctx.note(`${TOLD} Their sessions begun another way go on: \`sessions end ${id as string} --all\` ends them.`);
    },
  },
];
