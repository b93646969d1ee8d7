/** Interim: who tried a waiting client (replaced by core/oidc/client-review's recordTry). */
import * as clients from "../../store/oidc-clients";
import type { Deps } from "../deps";
import { selfRegistered, TRIED_BY_MAX } from "../model/oidc-client";

export async function recordTry(
  deps: Pick<Deps, "store" | "transaction">,
  clientId: string,
  personId: string,
): Promise<void> {
  await deps.transaction(async (tx) => {
    const client = await clients.findById(deps.store, clientId, tx);
    if (client === null || !selfRegistered(client) || client.review !== "waiting") return;
    if (client.triedBy.includes(personId) || client.triedBy.length >= TRIED_BY_MAX) return;
    await clients.save(deps.store, { ...client, triedBy: [...client.triedBy, personId] }, tx);
  });
}
