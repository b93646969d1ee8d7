import type { Deps } from "../deps";
import * as clients from "../store/oidc-clients";
import { sha256 } from "./secrets";

/** Registers (or re-registers) a relying party with its fixed redirect URI allowlist. */
export async function registerClient(
  deps: Pick<Deps, "store" | "clock">,
  client: { clientId: string; clientSecret: string; name: string; redirectUris: string[] },
): Promise<void> {
  await clients.save(deps.store, {
    clientId: client.clientId,
    name: client.name,
    secretHash: sha256(client.clientSecret),
    redirectUris: client.redirectUris,
    createdAt: deps.clock.now(),
  });
}
