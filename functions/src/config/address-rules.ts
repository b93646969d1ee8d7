/** ADDRESS_RULES: what a proven address at a mail domain is given when it first comes (core/arrival/arrival). */
import { z } from "zod";
import type { AddressRule } from "../core/settings";
import { check, jsonObject } from "./checks";

const label = z.string().trim().min(1).max(100);
const addressRulesSchema = z.record(
  z
    .string()
    .regex(
      /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/,
      "a domain is written in lowercase, as after the @ (school.example)",
    ),
  z.strictObject({
    then: z.enum(["approve", "suggest"]),
    projects: z.array(label).max(100).default([]),
    groups: z.array(label).max(100).default([]),
  }),
);

/** ADDRESS_RULES, checked whole: a mistake stops the function with the setting named. Empty: none. */
export function parseAddressRules(json: string): AddressRule[] {
  const rules = check("ADDRESS_RULES", addressRulesSchema, jsonObject("ADDRESS_RULES", json));
  return Object.entries(rules).map(([domain, rule]) => ({ domain, ...rule }));
}
