/**
 * The operator's hand on the passkey rule (the CLI's `passkey-rule …`): which roles it names,
 * over the deployment's PASSKEY_ROLES, and how it stands. What the rule decides of a person is
 * decided in core/people/acting, and nowhere else.
 */
import type { Deps } from "../deps";
import * as signInRules from "../../store/sign-in-rules";
import type { Operator } from "../model/history";
import type { PasskeyRule } from "../model/passkey-rule";
import type { Role } from "../model/person";
import { passkeyRule } from "./acting";

/** The rule in force, and whose word it is: the operator's (with who set it and when), or the deployment's setting. */
export interface RuleInForce {
  rule: PasskeyRule;
  source: "operator" | "deployment";
  setBy: string | null;
  setAt: Date | null;
}

export async function ruleInForce(deps: Pick<Deps, "store" | "config">): Promise<RuleInForce> {
  const [stored, rule] = await Promise.all([signInRules.readPasskeyRule(deps.store), passkeyRule(deps)]);
  return {
    rule,
    source: stored.roles === null ? "deployment" : "operator",
    setBy: stored.setBy,
    setAt: stored.setAt,
  };
}

/**
 * Names the roles the rule holds (none: off), or with null hands it back to the deployment's
 * PASSKEY_ROLES. Counts at once: every administrators' request and action reads it.
 */
export async function setPasskeyRoles(
  deps: Pick<Deps, "store" | "config" | "transaction" | "clock">,
  roles: Role[] | null,
  by: Operator,
): Promise<RuleInForce> {
  await deps.transaction(async (tx) => {
    signInRules.setRoles(deps.store, tx, roles, { by: by.name, at: deps.clock.now() });
  });
  return ruleInForce(deps);
}
