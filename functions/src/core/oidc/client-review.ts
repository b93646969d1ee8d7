/**
 * The review of clients that registered themselves, beside the people's: who tried a waiting one
 * (recorded at the authorise endpoint, so the decision can reach them), the queue the reviewers
 * read, the decision (an administrator's through the API, or the operator's `clients approve` and
 * `clients block`), and the operator's removal of such a client with all it holds.
 */
import { adminAudited, recordAudit } from "../audit";
import * as clients from "../../store/oidc-clients";
import * as people from "../../store/people";
import { sweepClient, type ClientSweep } from "../../store/client-data";
import type { Deps } from "../deps";
import { AppError, ensure, type ErrorCode } from "../errors";
import { contended } from "../failures";
import { selfRegistered, TRIED_BY_MAX, type OidcClient, type TokenAuth } from "../model/oidc-client";
import { PAST_STEP_UP } from "../model/step-up";
import type { Operator } from "../model/history";
import { ensureAdminActs, ensureStepUp, type ActingOnOthers } from "../people/acting";
import { queueClientReviewNotices, type ClientDecision } from "../notices/client-review-notices";
import { unknownClient } from "./clients";

export type { ClientDecision };

/** Rounds of recording a try that lost to others on the same client, each after a fresh look. */
const TRY_ROUNDS = 8;

/**
 * Records that `personId` tried the client while it waited for review: the first TRIED_BY_MAX
 * people, each once, are told of the decision. Nothing for any other client (the operator's, one
 * decided, one unknown). Decided in a transaction on the client, so people trying at once are
 * neither lost nor counted twice; a glance first, so a full or decided list costs one read.
 * Whether the person is on the list, now or before: only they may be promised a mail.
 */
export async function recordTry(
  deps: Pick<Deps, "store" | "transaction" | "log">,
  clientId: string,
  personId: string,
): Promise<boolean> {
  /** true: on the list; false: cannot be; null: to be added. */
  const standing = (c: OidcClient | null): boolean | null => {
    if (c === null || !selfRegistered(c) || c.review !== "waiting") return false;
    if (c.triedBy.includes(personId)) return true;
    return c.triedBy.length < TRIED_BY_MAX ? null : false;
  };
  for (let round = 0; round < TRY_ROUNDS; round++) {
    const glance = standing(await clients.findById(deps.store, clientId));
    if (glance !== null) return glance;
    try {
      return await deps.transaction(async (tx) => {
        const client = await clients.findById(deps.store, clientId, tx);
        const now = standing(client);
        if (now !== null || client === null) return now === true;
        await clients.save(deps.store, { ...client, triedBy: [...client.triedBy, personId] }, tx);
        return true;
      });
    } catch (err) {
      // Many people at once on one client: look again, and the list may be full by then.
      if (!contended(err)) throw err;
    }
  }
  deps.log.warn("client try not recorded", { clientId, personId });
  return false;
}

/** A person who tried a waiting client, as the reviewer sees them. */
export interface TriedBy {
  personId: string;
  name: string;
  email: string | null;
}

/** A client in the queue: what it says of itself, where it sends people, and who tried it. */
export interface WaitingClient {
  clientId: string;
  name: string;
  registeredBy: "self" | "document";
  /** For a client named by its metadata document's URL: the URL's origin, where the document is. */
  documentOrigin: string | null;
  redirectUris: string[];
  clientUri: string | null;
  logoUri: string | null;
  tokenAuth: TokenAuth;
  createdAt: Date;
  triedBy: TriedBy[];
}

export interface ClientQueuePage {
  clients: WaitingClient[];
  /** How many wait in all. */
  waiting: number;
  next: string | null;
}

/**
 * The clients waiting for review, oldest first, a page at a time, each with the people who tried
 * it read from the people store now (one erased since is left out).
 */
export async function clientQueue(
  deps: Pick<Deps, "store">,
  limit: number,
  after: string | null,
): Promise<ClientQueuePage> {
  const [page, waiting] = await Promise.all([
    clients.waitingPage(deps.store, limit + 1, after),
    clients.countWaiting(deps.store),
  ]);
  // Only a client that registered itself waits; one more than asked says whether a page follows.
  const shown = page.clients.slice(0, limit).filter(selfRegistered);
  const ids = [...new Set(shown.flatMap((c) => c.triedBy))];
  const found = new Map(
    (await Promise.all(ids.map((id) => people.findById(deps.store, id)))).map((p, i) => [ids[i], p]),
  );
  const tried = (id: string): TriedBy[] => {
    const p = found.get(id);
    return p == null ? [] : [{ personId: p.id, name: p.name, email: p.emails[0] ?? null }];
  };
  return {
    clients: shown.map((c) => ({
      clientId: c.clientId,
      name: c.name,
      registeredBy: c.registeredBy === "document" ? "document" : "self",
      documentOrigin: c.registeredBy === "document" && URL.canParse(c.clientId) ? new URL(c.clientId).origin : null,
      redirectUris: c.redirectUris,
      clientUri: c.clientUri,
      logoUri: c.logoUri,
      tokenAuth: c.tokenAuth,
      createdAt: c.createdAt,
      triedBy: c.triedBy.flatMap(tried),
    })),
    waiting,
    next: page.clients.length > limit ? (page.keys[limit - 1] ?? null) : null,
  };
}

/** What became of one client of a decision: decided (and how many people it told), or why not. */
export type ClientReviewResult =
  | { clientId: string; client: OidcClient; told: number }
  | { clientId: string; error: ErrorCode; detail: string | undefined };

/** How many of a decision's clients are decided at once: each is a transaction of its own. */
const DECIDED_AT_ONCE = 10;

/** What an approval held for a fresh sign-in says. */
const LETS_IN = `This lets an app sign people in: sign in again first (your sign-in is ${PAST_STEP_UP} old)`;

/**
 * Decides a client that registered itself, in one transaction: who decides is judged in it (an
 * administrator is still one, under the passkey rule; letting an app in, which widens what can
 * sign people in, needs their recent sign-in, as approving a person does), the decision is set,
 * and each person who tried it, as the list stood before the change, is queued one notice of
 * their own; the list is cleared with it, so a second decision tells nobody again. The operator's
 * own clients are refused. Instances that hold the client cached see it within 30 seconds.
 */
export async function decideClient(
  deps: Pick<Deps, "store" | "clock" | "random" | "transaction" | "config" | "log">,
  clientId: string,
  decision: ClientDecision,
  by: ActingOnOthers,
): Promise<{ client: OidcClient; told: number }> {
  const { client, told, acting } = await deps.transaction(async (tx) => {
    const acting = await ensureAdminActs(deps, tx, by);
    const current = await clients.findById(deps.store, clientId, tx);
    if (current === null) throw unknownClient(clientId);
    if (!selfRegistered(current))
      throw new AppError(
        "client_not_self_registered",
        `"${clientId}" was registered by the operator; only clients that registered themselves are reviewed`,
      );
    if (decision === "approved") ensureStepUp(deps, acting, LETS_IN);
    // Whom to tell is fixed here, from the list before this change: every read before the first write.
    const tried = await Promise.all(current.triedBy.map((id) => people.findById(deps.store, id, tx)));
    const next: OidcClient = { ...current, review: decision, triedBy: [] };
    await clients.save(deps.store, next, tx);
    // The operator's command is recorded by the command line, once per command.
    if ("admin" in acting)
      recordAudit(deps, tx, {
        ...adminAudited(acting),
        kind: "client",
        action: `client.${decision}`,
        subjects: [clientId],
      });
    return { client: next, told: queueClientReviewNotices(deps, tx, clientId, decision, tried), acting };
  });
  deps.log.info("client reviewed", {
    clientId,
    review: decision,
    by: "admin" in acting ? acting.admin.id : "operator",
  });
  return { client, told };
}

/**
 * The operator's review (`clients approve`, `clients block`): the same decision, told to the same
 * people. `approved` lets the client be used; `blocked` makes it unknown to every endpoint as
 * disabling does (findClient, usable), so its refresh tokens and access tokens stop working with it.
 */
export async function reviewClient(
  deps: Pick<Deps, "store" | "clock" | "random" | "transaction" | "config" | "log">,
  clientId: string,
  review: ClientDecision,
  operator: Operator,
): Promise<{ client: OidcClient; told: number }> {
  return decideClient(deps, clientId, review, { operator });
}

/** Decides each client on its own: one refused (unknown, the operator's, held for a fresh sign-in) is its row's error. */
export async function decideClients(
  deps: Pick<Deps, "store" | "clock" | "random" | "transaction" | "config" | "log">,
  clientIds: string[],
  decision: ClientDecision,
  by: ActingOnOthers,
): Promise<ClientReviewResult[]> {
  const results: ClientReviewResult[] = [];
  for (let i = 0; i < clientIds.length; i += DECIDED_AT_ONCE) {
    const chunk = clientIds.slice(i, i + DECIDED_AT_ONCE);
    results.push(
      ...(await Promise.all(
        chunk.map(async (clientId): Promise<ClientReviewResult> => {
          try {
            return { clientId, ...(await decideClient(deps, clientId, decision, by)) };
          } catch (err) {
            if (!(err instanceof AppError)) throw err;
            return { clientId, error: err.code, detail: err.detail };
          }
        }),
      )),
    );
  }
  return results;
}

/**
 * Removes a client that registered itself, for good: disabled first (every endpoint then knows it
 * no more than an id nobody registered), then everything that names it is deleted: the consents
 * people gave it, its grants with their refresh tokens, its access tokens, its unredeemed codes,
 * its sign-ins and the disconnects remembered of it; its document last, so that a removal stopped
 * half-way is finished by running it again. Nothing of it is left for a client that later
 * registers under the same id (a metadata document's URL) to inherit. The operator's own clients
 * are refused: they are disabled instead.
 */
export async function removeClient(
  deps: Pick<Deps, "store" | "transaction" | "log">,
  clientId: string,
): Promise<{ client: OidcClient; removed: ClientSweep }> {
  // Disabled first, so it gets nothing more while what it holds is swept; its document goes last,
  // so a removal that stops half-way is found and finished by running it again.
  const client = await deps.transaction(async (tx) => {
    const found = await clients.findById(deps.store, clientId, tx);
    if (found === null) throw unknownClient(clientId);
    ensure(
      selfRegistered(found),
      "client_not_self_registered",
      `"${clientId}" was registered by the operator; only a client that registered itself is removed (disable it instead)`,
    );
    await clients.save(deps.store, { ...found, disabled: true }, tx);
    return found;
  });
  const removed = await sweepClient(deps.store, clientId);
  await deps.transaction(async (tx) => {
    await clients.findById(deps.store, clientId, tx);
    clients.remove(deps.store, tx, clientId);
  });
  deps.log.info("client removed", { clientId, ...removed });
  return { client, removed };
}
