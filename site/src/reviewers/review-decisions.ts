/**
 * Approving or rejecting people from the review queue, one or several at once
 * (POST /auth/people/review), with what became of each in words. Those the service holds back
 * for a fresh sign-in (approving widens access) are asked again once the reviewer has confirmed
 * it's them, in place: with their passkey, where the passkey rule holds them.
 */
import type { Person } from "../shared/api";
import { askAdmin } from "./door";
import type { Notice } from "../shared/api";
import { TRY_AGAIN } from "../shared/messages";
import { projectName, syncErrorWords, whoIs, type AdminPerson } from "./people-words";
import { confirmItsYou, withStepUp } from "../sign-in/step-up";
import { usePasskeyInPlace } from "../sign-in/passkey-in-place";
import { PAST_STEP_UP } from "../../../functions/src/core/model/step-up";

export type Decision = "approved" | "rejected";

type Result =
  | { personId: string; person: AdminPerson; providerSyncErrors: Array<{ uid: string }> }
  | { personId: string; error: string; reason: string };

export interface Outcome {
  /** `warning`: what the identity provider did not take, after a decision that was saved. */
  each: Array<{ person: AdminPerson; words: string; warning: string | null; done: boolean }>;
  /** For several at once: how many were done, and that each says why where one was not. */
  summary: string | null;
}

/** What became of one person, in words. */
export function resultWords(result: Result, decision: Decision): string {
  if ("person" in result) return decision === "approved" ? "Approved." : "Rejected.";
  if (result.reason === "step_up_required")
    return `Not approved yet: confirm it's you first (you signed in ${PAST_STEP_UP} ago), then approve again.`;
  if (result.reason === "passkey_required")
    return "Not approved yet: use your passkey first (administrators act only from a sign-in with one), then approve again.";
  if (result.reason === "person_not_found") return "Not done: this person is no longer there.";
  return `Not done: ${result.error}`;
}

export async function review(
  me: Person,
  people: AdminPerson[],
  decision: Decision,
  place: (panel: HTMLElement) => void,
  notice: Notice,
): Promise<Outcome | null> {
  const post = async (personIds: string[]): Promise<Result[] | null> => {
    const answer = await askAdmin(notice, "POST", "/auth/people/review", { personIds, status: decision });
    if (answer === null) return null;
    if (answer.status !== 200) return (notice.show(TRY_AGAIN), null);
    return answer.body.results as Result[];
  };
  let results = await post(people.map((p) => p.personId));
  if (results === null) return null;
  const heldFor = (reason: string) =>
    (results as Result[]).filter((r) => "reason" in r && r.reason === reason).map((r) => r.personId);
  // Held back for a fresh sign-in: a passkey's where the passkey rule holds the reviewer, else any.
  const forPasskey = heldFor("passkey_required");
  const held = forPasskey.length > 0 ? forPasskey : heldFor("step_up_required");
  const confirmed =
    held.length > 0 && (forPasskey.length > 0 ? await usePasskeyInPlace(place) : await confirmItsYou(place, me));
  if (confirmed) {
    const again = new Map((await post(held))?.map((r) => [r.personId, r]));
    results = results.map((r) => again.get(r.personId) ?? r);
  }
  const each = results.flatMap((r) => {
    const person = people.find((p) => p.personId === r.personId);
    if (person === undefined) return [];
    const warning = "person" in r ? syncErrorWords(r.providerSyncErrors) : null;
    return [{ person, words: resultWords(r, decision), warning, done: "person" in r }];
  });
  const done = each.filter((e) => e.done).length;
  const verb = decision === "approved" ? "Approved" : "Rejected";
  const summary =
    people.length === 1
      ? null
      : done === each.length
        ? `${verb} ${done === 1 ? whoIs(each[0]?.person as AdminPerson) : `all ${done}`}.`
        : `${verb} ${done} of ${each.length}. Each one that wasn't says why.`;
  return { each, summary };
}

/**
 * Approves one person with what the rule for their address's domain suggests (their projects and
 * groups added to), in one PATCH, confirming it's the reviewer first where the service asks.
 */
export async function approveAsSuggested(
  me: Person,
  person: AdminPerson,
  place: (panel: HTMLElement) => void,
  notice: Notice,
): Promise<Outcome["each"][number] | null> {
  const suggestion = person.suggestion;
  if (suggestion === null) return null;
  const body = {
    status: "approved",
    projects: [...new Set([...person.projects, ...suggestion.projects])],
    groups: [...new Set([...person.groups, ...suggestion.groups])],
  };
  const path = `/auth/people/${encodeURIComponent(person.personId)}`;
  const answer = await withStepUp(() => askAdmin(notice, "PATCH", path, body), place, me);
  if (answer === "cancelled")
    return {
      person,
      words: resultWords({ personId: person.personId, error: "", reason: "step_up_required" }, "approved"),
      warning: null,
      done: false,
    };
  if (answer === null) return null;
  if (answer.status !== 200)
    return { person, words: `Not done: ${String(answer.body.error ?? TRY_AGAIN)}`, warning: null, done: false };
  const given = [...suggestion.projects.map(projectName), ...suggestion.groups.map((g) => `group ${g}`)];
  return {
    person,
    words: `Approved, with ${given.join(", ") || "nothing more"}.`,
    warning: syncErrorWords(answer.body.providerSyncErrors as Array<{ uid: string }>),
    done: true,
  };
}
