/** HANDOFF_APPS: the apps outside the parent domain a signed-in person can be handed to. */
import { z } from "zod";
import { isRedirectUriForm } from "../core/sessions/handoff-redirects";
import type { HandoffApp } from "../core/settings";
import { check, jsonObject } from "./checks";

const handoffAppsSchema = z.record(
  z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, "app ids are lowercase letters, digits and hyphens"),
  z.strictObject({
    name: z.string().trim().min(1).max(80),
    redirectUris: z
      .array(
        z
          .string()
          .refine(isRedirectUriForm, "a redirect URI is https, loopback http, or a private-use scheme (RFC 8252)"),
      )
      .min(1)
      .max(20),
  }),
);

/** HANDOFF_APPS, checked whole: a mistake stops the function with the setting named. */
export function parseHandoffApps(json: string): Record<string, HandoffApp> {
  const apps = check("HANDOFF_APPS", handoffAppsSchema, jsonObject("HANDOFF_APPS", json));
  return Object.fromEntries(Object.entries(apps).map(([id, app]) => [id, { id, ...app }]));
}
