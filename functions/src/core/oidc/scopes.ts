import { type Person } from "../model/person";

export const SCOPES = ["openid", "email", "profile", "offline_access"] as const;

/**
 * The scope that asks for a refresh token (OpenID Connect Core §11): granted only to a client the
 * operator registered for refresh tokens, which stands for the consent the spec asks for; passed
 * over for any other, as an unknown scope is.
 */
export const OFFLINE_ACCESS = "offline_access";

/** What the granted scopes let a client know: the address needs `email`, the name `profile`. */
export function claimsFor(person: Person, scopes: string[]): Record<string, unknown> {
  const claims: Record<string, unknown> = {};
  const email = person.emails[0];
  // Only addresses a sign-in has verified are ever linked to a person.
  if (scopes.includes("email") && email !== undefined) Object.assign(claims, { email, email_verified: true });
  if (scopes.includes("profile")) claims.name = person.name;
  return claims;
}
