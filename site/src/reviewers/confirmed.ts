/**
 * An administrator's request that may widen someone's access: when the service wants a fresh
 * sign-in first (`step_up_required`), the page asks them to confirm it's them in place, beside
 * what they pressed, and then asks again.
 */
import type { Person } from "../shared/api";
import { askAdmin, type Section } from "./door";
import { withStepUp } from "../sign-in/step-up";

type Ask = Parameters<typeof askAdmin>;

/** Asks, and when the service wants a fresh sign-in first, asks for it beside `near` and asks again. */
export async function askConfirmed(
  me: Person,
  where: Section,
  near: HTMLElement,
  method: Ask[1],
  path: string,
  body?: Ask[3],
  why?: string,
) {
  const answer = await withStepUp(
    () => askAdmin(where.alert, method, path, body),
    (p) => near.after(p),
    me,
    why,
  );
  if (answer !== "cancelled") return answer;
  where.said("Nothing was done.");
  return null;
}
