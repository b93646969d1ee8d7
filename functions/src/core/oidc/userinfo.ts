import type { Deps } from "../deps";
import * as accessTokens from "../../store/oidc-tokens";
import * as people from "../../store/people";
import { ensure } from "../errors";
import { sha256 } from "../secrets";
import { claimsFor } from "./scopes";

/** The claims behind an access token, while it lives and its person is still approved. */
export async function userinfo(
  deps: Pick<Deps, "store" | "clock">,
  accessToken: string,
): Promise<Record<string, unknown>> {
  const token = await accessTokens.findByHash(deps.store, sha256(accessToken));
  ensure(token && deps.clock.now().getTime() < token.expiresAt.getTime(), "oauth_invalid_token");
  const person = await people.findById(deps.store, token.personId);
  ensure(person && person.status === "approved" && person.uids.includes(token.uid), "oauth_invalid_token");
  return { sub: person.id, ...claimsFor(person, token.scopes) };
}
