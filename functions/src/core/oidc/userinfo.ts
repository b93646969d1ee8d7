import type { Deps } from "../deps";
import { ensure } from "../errors";
import { liveAccessToken } from "./introspection";
import { claimsFor } from "./scopes";

/**
 * The claims behind an access token, while it is good (core/oidc/introspection): not expired nor
 * revoked, its person still one who may sign in to its client with the account it was issued for.
 * A token for a resource (core/oidc/access-tokens) is that resource's, not userinfo's: refused.
 */
export async function userinfo(
  deps: Pick<Deps, "store" | "clock" | "tokens" | "config">,
  accessToken: string,
): Promise<Record<string, unknown>> {
  const live = await liveAccessToken(deps, accessToken);
  ensure(live && live.token.resource === null, "oauth_invalid_token");
  return { sub: live.person.id, ...claimsFor(live.person, live.token.scopes) };
}
