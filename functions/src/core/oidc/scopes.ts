import { type Person } from "../model/person";

export const SCOPES = ["openid", "email", "profile"] as const;

/** What the granted scopes let a client know: the address needs `email`, the name `profile`. */
export function claimsFor(person: Person, scopes: string[]): Record<string, unknown> {
  const claims: Record<string, unknown> = {};
  const email = person.emails[0];
  // Only addresses a sign-in has verified are ever linked to a person.
  if (scopes.includes("email") && email !== undefined) Object.assign(claims, { email, email_verified: true });
  if (scopes.includes("profile")) claims.name = person.name;
  return claims;
}
