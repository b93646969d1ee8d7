/**
 * `passkey-rule …`: the rule that administrators act only from a passkey sign-in (core/people/acting):
 * how it stands, and the operator's word on which roles it holds.
 */
import { ruleInForce, setPasskeyRoles, type RuleInForce } from "../../core/people/passkey-rule";
import type { Role } from "../../core/model/person";
import type { Command } from "../cli";
import { UsageError } from "../refusals";

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
];
