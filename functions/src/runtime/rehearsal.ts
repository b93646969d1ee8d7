import { personFor, readSession } from "../core/sessions/sessions";
import { productionDeps } from "../deps";
import { unavailableGuard } from "../http/gate";

/**
 * What the platform's build has each bundle run once, beside a request through its handler,
 * before it keeps V8's code of it (gcp-build.ts): the part of a first request that a request
 * without a session or a database cannot reach. A session token of the build's own key is
 * issued and checked, and its person looked up in Firestore, as the gate does, against the
 * build's stand-in for Firestore.
 */
export async function rehearse(): Promise<void> {
  const deps = productionDeps();
  const now = deps.clock.now();
  const session = { uid: "rehearsal", personId: "rehearsal", sessionId: "rehearsal", authTime: now, amr: [] };
  const { token } = await deps.tokens.issue(session, now, 60_000);
  const guard = unavailableGuard(deps);
  const principal = await readSession(deps, token, guard);
  if (principal === null) throw new Error("the rehearsal's session did not verify");
  await personFor(deps, principal, guard);
}
