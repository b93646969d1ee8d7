/** The body and query fields several groups take, checked alike (zod). */
import { z } from "zod";
import { canonicalEmail } from "../core/email-address";

/** An address, in its one canonical form (core/email-address); anything else fails the field. */
export const emailField = z
  .string()
  .transform(
    (raw, ctx) => canonicalEmail(raw) ?? (ctx.addIssue({ code: "custom", message: "invalid email" }), z.NEVER),
  );

/** A project's or a group's name, as people are granted them. */
export const labelField = z.string().trim().min(1).max(100);
