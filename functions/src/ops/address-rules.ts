/** ADDRESS_RULES as `doctor` and `status` show them: who comes in without review, and what is suggested. */
import type { AddressRule } from "../core/settings";

export function addressRulesText(rules: AddressRule[]): string {
  if (rules.length === 0) return "address rules (ADDRESS_RULES): none; everyone who asks is reviewed";
  const one = (r: AddressRule) => {
    const gives = `${r.projects.join(", ") || "no projects"}${r.groups.length === 0 ? "" : `; groups ${r.groups.join(", ")}`}`;
    return r.then === "approve"
      ? `  @${r.domain}: approved on arrival, with ${gives}`
      : `  @${r.domain}: reviewed, with ${gives} suggested to the reviewer`;
  };
  return ["address rules (ADDRESS_RULES):", ...rules.map(one)].join("\n");
}
