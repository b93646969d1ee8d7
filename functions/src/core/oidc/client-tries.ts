/** Interim: who tried a waiting client (replaced by core/oidc/client-review's recordTry). */
import * as clients from "../../store/oidc-clients";
import type { Deps } from "../deps";
import { selfRegistered, TRIED_BY_MAX } from "../model/oidc-client";

/** Records `personId` as one who tried the waiting client; whether they are on its list (to be told), now or before. */
export async function recordTry(
  deps: Pick<Deps, "store" | "transaction">,
  clientId: string,
  personId: string,
): Promise<boolean> {
  return deps.transaction(async (tx) => {
    const client = await clients.findById(deps.store, clientId, tx);
    if (client === null || !selfRegistered(client) || client.review !== "waiting") return false;
    if (client.triedBy.includes(personId)) return true;
    if (client.triedBy.length >= TRIED_BY_MAX) return false;
    await clients.save(deps.store, { ...client, triedBy: [...client.triedBy, personId] }, tx);
    return true;
  });
}
