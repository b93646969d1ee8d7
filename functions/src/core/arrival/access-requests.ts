import type { Deps } from "../deps";
import * as people from "../../store/people";
import { changesBetween } from "../people/history";
import * as personKeys from "../../store/person-keys";
import type { Transaction } from "../../store/db";
import { alreadyExists } from "../failures";
import { publishAndRecord } from "../people/person-events";
import { arrive, arrivalFor, type Arriving } from "./arrival";

/** What a request for access may carry for the reviewer, already cleaned (core/text). */
export interface RequestDetails {
  name?: string;
  note?: string;
}

/**
 * A stranger has proved `address` (a correct `request-access` code): records the request as a
 * new pending person holding the address, with the name and note they gave, for a reviewer, and
 * marks them for the reviewers' digest (an invited address arrives approved instead,
 * core/arrival/arrival). Asked again while still pending, the request's name and
 * note are updated; a person already reviewed is left alone. The address key is claimed in the
 * same transaction (store/person-keys), so concurrent requests make one person.
 */
export async function recordAccessRequest(
  deps: Pick<Deps, "store" | "clock" | "random" | "transaction" | "mailQueue" | "log" | "config">,
  address: string,
  details: RequestDetails,
): Promise<void> {
  const { store } = deps;
  try {
    await deps.transaction(async (tx) => {
      const holderId = await personKeys.keyHolder(store, tx, "email", address);
      if (holderId !== null) return updateRequest(deps, tx, holderId, details);
      // An address invited before, or at a domain a rule approves, arrives approved: no reviewer need see it.
      const arrival = await arrivalFor(deps, address, tx);
      const arriving: Arriving = {
        uids: [],
        emails: [address],
        phones: [],
        name: details.name ?? "",
        origin: { via: "email", address },
        note: details.note ?? "",
      };
      arrive(deps, tx, arriving, "request-access", arrival);
    });
  } catch (err) {
    if (!alreadyExists(err)) throw err;
  }
}

async function updateRequest(
  deps: Pick<Deps, "store" | "clock" | "random">,
  tx: Transaction,
  personId: string,
  details: RequestDetails,
): Promise<void> {
  const current = await people.findById(deps.store, personId, tx);
  if (current === null || current.status !== "pending") return;
  const next = {
    ...current,
    ...(details.name === undefined ? {} : { name: details.name }),
    ...(details.note === undefined ? {} : { note: details.note }),
  };
  const changes = changesBetween(current, next);
  if (Object.keys(changes).length === 0) return;
  const changed = { ...next, updatedAt: deps.clock.now() };
  people.replace(
    deps.store,
    tx,
    current,
    publishAndRecord(deps, tx, current, changed, { kind: "person" }, "request-access"),
  );
}
