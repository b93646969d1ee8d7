/**
 * An administrator's request that may widen someone's access: when the service wants a fresh
 * sign-in first (`step_up_required`), the page asks them to confirm it's them in place, beside
 * what they pressed, and then asks again.
 */
import type { Person } from "../shared/api";
import { askAdmin, type Section } from "./door";
import { confirmItsYou, stepUpAsked } from "../sign-in/step-up";

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
  const act = () => askAdmin(where.alert, method, path, body);
  const answer = await act();
  if (answer === null || !stepUpAsked(answer)) return answer;
  if (!(await confirmItsYou((panel) => near.after(panel), me, why))) {
    where.said("Nothing was done.");
    return null;
  }
  return act();
}
