import type { Deps } from "../deps";
import { ensure } from "../errors";
import { liveAccessToken } from "./introspection";
import { claimsFor } from "./scopes";

/**
 * The claims behind an access token, while it is good (core/oidc/introspection): not expired nor
 * revoked, its person still one who may sign in to its client with the account it was issued for.
 */
export async function userinfo(
  deps: Pick<Deps, "store" | "clock">,
  accessToken: string,
): Promise<Record<string, unknown>> {
  const live = await liveAccessToken(deps, accessToken);
  ensure(live, "oauth_invalid_token");
  return { sub: live.person.id, ...claimsFor(live.person, live.token.scopes) };
}
