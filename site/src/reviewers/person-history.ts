/**
 * A person's page, what was done to them: their history, newest first (who, when, how, what
 * changed, in words), a page at a time; read again after each change the page makes.
 */
import { askAdmin, section } from "./door";
import { TRY_AGAIN } from "../shared/messages";
import { ago, byWhom, exactly, whatHappened, type HistoryEntry } from "./people-words";
import { button, h, whileBusy } from "../shared/ui";

const PAGE = 20;

function entry(e: HistoryEntry): HTMLElement {
  return h(
    "li",
    { class: "entry" },
    h(
      "p",
      { class: "small" },
      h("time", { datetime: e.at }, ago(e.at, new Date())),
      ` (${exactly(e.at)}) · ${byWhom(e)}`,
    ),
    h("ul", { class: "changes" }, ...whatHappened(e).map((line) => h("li", {}, line))),
  );
}

export function historySection(personId: string): { element: HTMLElement; reload(): Promise<void> } {
  const where = section("history", "History");
  const list = h("ul", { class: "plain entries" });
  const more = button("Show more", { kind: "secondary" });
  let next: string | null = null;
  where.body.append(list, more);

  async function load(fresh: boolean): Promise<void> {
    const cursor = fresh || next === null ? "" : `&cursor=${encodeURIComponent(next)}`;
    const answer = await askAdmin(
      where.alert,
      "GET",
      `/auth/people/${encodeURIComponent(personId)}/history?limit=${PAGE}${cursor}`,
    );
    if (answer === null) return;
    if (answer.status !== 200) return where.alert.show(TRY_AGAIN);
    const entries = answer.body.entries as HistoryEntry[];
    next = answer.body.next as string | null;
    if (fresh) list.replaceChildren();
    list.append(...entries.map(entry));
    if (list.childElementCount === 0) list.append(h("li", { class: "small" }, "Nothing yet."));
    more.hidden = next === null;
    // Show more: focus on the first entry it brought, where reading goes on.
    const first = fresh
      ? undefined
      : (list.children[list.childElementCount - entries.length] as HTMLElement | undefined);
    first?.setAttribute("tabindex", "-1");
    first?.focus();
  }
  more.addEventListener("click", () => void whileBusy(more, "Loading…", () => load(false)));
  void load(true);
  return { element: where.element, reload: () => load(true) };
}
