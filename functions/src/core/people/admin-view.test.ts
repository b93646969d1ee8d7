/**
 * admin-view.ts spells out the history's words itself (it imports nothing: the identity host's
 * pages bundle it), so these hold its copy to the domain's (core/model/history, which the store
 * keeps): a word added to or taken from either side, and not the other, fails to compile here,
 * which the type check refuses (the first step of `npm test`; jest itself only strips types).
 */
import type { Actor, HistoryEntry, HistoryEvent, Via } from "../model/history";
import type { HistoryEntryView } from "./admin-view";

/** `true` when each of A and B is assignable to the other (the same union), else `false`. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/** Compiles only where A and B are the same; says so at run time too. */
const same = <A, B>(verdict: Same<A, B>): boolean => verdict;

describe("HistoryEntryView, against the history the store keeps", () => {
  it("names the same events", () => {
    expect(same<HistoryEntryView["event"], HistoryEvent>(true)).toBe(true);
  });

  it("names the same actors, and the same ways they acted through", () => {
    expect(same<HistoryEntryView["by"], Actor>(true)).toBe(true);
    expect(same<HistoryEntryView["via"], Via>(true)).toBe(true);
  });

  it("tells a change the same way", () => {
    expect(same<HistoryEntryView["changes"], HistoryEntry["changes"]>(true)).toBe(true);
  });
});
