import type { Deps } from "../deps";
import * as people from "../../store/people";

/** gRPC ALREADY_EXISTS: a concurrent request claimed the address first. */
function lostClaimRace(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { code?: unknown }).code === 6;
}

/**
 * A stranger has proved `address` (a correct `request-access` code): records the request as a
 * new pending person holding the address, for an administrator to review in GET /auth/people.
 * Idempotent: if any person already holds the address, nothing new is recorded. The address key
 * is claimed in the same transaction (store/people), so concurrent requests make one person.
 */
export async function recordAccessRequest(
  deps: Pick<Deps, "store" | "clock" | "random" | "transaction">,
  address: string,
): Promise<void> {
  const { store } = deps;
  try {
    await deps.transaction(async (tx) => {
      if ((await people.keyHolder(store, tx, "email", address)) !== null) return;
      const request: people.NewPerson = {
        uids: [],
        emails: [address],
        phones: [],
        name: "",
        role: "user",
        projects: [],
        groups: [],
        status: "pending",
      };
      people.create(store, tx, request, deps.random.id(), deps.clock.now());
    });
  } catch (err) {
    if (!lostClaimRace(err)) throw err;
  }
}
