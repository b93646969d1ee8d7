/**
 * `/review`: the people waiting for review, oldest first, a page at a time ("Show more"): what
 * each proved when they came, when, their name and their note (as text). Approve or reject one,
 * or select several and decide them at once; what became of each is said beside it. Then the apps
 * that registered themselves and wait for review (reviewers/app-queue). The administrators' page:
 * anyone else is told so, and a signed-out visitor is sent to sign in.
 */
import type { Person } from "../shared/api";
import { askAdmin, forAdministrators, personPage } from "../reviewers/door";
import { ago, exactly, proved, suggestionWords, whoIs, type AdminPerson } from "../reviewers/people-words";
import { approveAsSuggested, review, type Decision } from "../reviewers/review-decisions";
import { appQueue } from "../reviewers/app-queue";
import { alertBox, button, h, paragraph, retitle, unseen, view, whileBusy } from "../shared/ui";

const PAGE = 25;

function title(waiting: number): string {
  return `Review requests (${waiting === 0 ? "none" : waiting} waiting)`;
}

forAdministrators(async (me: Person) => {
  const alert = alertBox();
  const first = await askAdmin(alert, "GET", `/auth/people/queue?limit=${PAGE}`);
  if (first?.status !== 200) {
    view("We can't show the requests right now", alert.element);
    if (first !== null) alert.show("Something went wrong on our side. Please reload the page in a moment.");
    return;
  }
  const list = h("ul", { class: "plain requests" });
  const chosen = h("p", { class: "small", id: "chosen" }, "None selected.");
  const said = h("p", { role: "status", class: "small" });
  const approveAll = button("Approve selected", { kind: "primary" });
  const rejectAll = button("Reject selected", { kind: "secondary" });
  const bar = h(
    "div",
    { class: "bulk", role: "group", "aria-label": "Selected requests" },
    chosen,
    h("div", { class: "actions" }, approveAll, rejectAll),
  );
  const more = button("Show more", { kind: "secondary" });
  const shown = h("p", { role: "status", class: "small" });
  let next = first.body.next as string | null;
  let waiting = first.body.waiting as number;

  const boxes = () => [...list.querySelectorAll<HTMLInputElement>("input[type=checkbox]")];
  const selected = () => boxes().filter((b) => b.checked);
  const countChosen = () => {
    const n = selected().length;
    chosen.textContent = n === 0 ? "None selected." : `${n} selected.`;
    // Held at the foot of the screen while there is a choice to act on.
    bar.classList.toggle("held", n > 0);
  };
  const footer = () => {
    more.hidden = next === null;
    bar.hidden = boxes().length === 0;
    if (list.childElementCount === 0) list.append(h("li", { class: "small" }, "Nobody is waiting for review."));
  };

  /** The count in the heading, asked again: other reviewers may be deciding too. */
  async function recount(): Promise<void> {
    const answer = await askAdmin(alert, "GET", "/auth/people/queue?limit=1");
    if (answer?.status === 200) waiting = answer.body.waiting as number;
    retitle(title(waiting));
  }

  async function decide(people: AdminPerson[], decision: Decision, place: (panel: HTMLElement) => void): Promise<void> {
    said.textContent = "";
    alert.show(null);
    const outcome = await review(me, people, decision, place, alert);
    if (outcome === null) return;
    for (const { person, words, warning, done } of outcome.each) {
      const item = list.querySelector<HTMLElement>(`[data-person="${CSS.escape(person.personId)}"]`);
      if (item !== null) settled(item, words, warning, done);
    }
    countChosen();
    footer();
    await recount();
    said.textContent = outcome.summary ?? "";
  }

  /** An item once decided: what became of it, where its controls were; focus there for a keyboard. */
  function settled(item: HTMLElement, words: string, warning: string | null, done: boolean): void {
    const result = h(
      "div",
      { class: done ? "outcome done" : "outcome", tabindex: "-1" },
      h("p", {}, words),
      warning === null ? null : h("p", { class: "warning" }, warning),
    );
    if (done) item.querySelector(".select")?.replaceChildren(h("p", { class: "who" }, item.dataset.name ?? ""));
    item.querySelector(".outcome")?.remove();
    item.querySelector(".decide")?.before(result);
    if (done) item.querySelector(".decide")?.remove();
  }

  function row(person: AdminPerson): HTMLElement {
    const who = whoIs(person);
    const id = `select-${person.personId}`;
    const box = h("input", { type: "checkbox", id, onchange: countChosen });
    const approve = button(["Approve", unseen(` ${who}`)], { kind: "primary" });
    const reject = button(["Reject", unseen(` ${who}`)], { kind: "secondary" });
    const decideOne = (control: HTMLButtonElement, decision: Decision, busy: string) =>
      control.addEventListener("click", () => {
        void whileBusy(control, busy, async () => {
          await decide([person], decision, (panel) => item.append(panel));
          item.querySelector<HTMLElement>(".outcome")?.focus();
        });
      });
    decideOne(approve, "approved", "Approving…");
    decideOne(reject, "rejected", "Rejecting…");
    // What the operator's rule for their domain suggests, given with the approval in one step.
    const suggested =
      person.suggestion === null
        ? null
        : button(["Approve as suggested", unseen(` for ${who}`)], { kind: "secondary" });
    suggested?.addEventListener("click", () => {
      void whileBusy(suggested, "Approving…", async () => {
        said.textContent = "";
        alert.show(null);
        const outcome = await approveAsSuggested(me, person, (panel) => item.append(panel), alert);
        if (outcome === null) return;
        settled(item, outcome.words, outcome.warning, outcome.done);
        countChosen();
        footer();
        await recount();
        item.querySelector<HTMLElement>(".outcome")?.focus();
      });
    });
    const item = h(
      "li",
      { class: "request", "data-person": person.personId, "data-name": who },
      h("div", { class: "select" }, box, h("label", { for: id }, unseen("Select "), who)),
      h(
        "dl",
        { class: "facts" },
        h("dt", {}, "How they came"),
        h("dd", {}, proved(person.origin)),
        h("dt", {}, "Asked"),
        h(
          "dd",
          {},
          h("time", { datetime: person.createdAt }, ago(person.createdAt, new Date())),
          ` (${exactly(person.createdAt)})`,
        ),
        h("dt", {}, "Their note"),
        // What they wrote, as text: never parsed as HTML.
        h("dd", { class: person.note === "" ? "small" : "note" }, person.note === "" ? "No note." : person.note),
        ...(person.suggestion === null
          ? []
          : [h("dt", {}, "Suggested"), h("dd", { class: "suggestion" }, suggestionWords(person.suggestion) ?? "")]),
      ),
      h("div", { class: "actions decide" }, approve, ...(suggested === null ? [] : [suggested]), reject),
      h("p", { class: "small" }, h("a", { href: personPage(person.personId) }, "Details", unseen(` of ${who}`))),
    );
    if (person.name === "")
      item.querySelector("dl")?.prepend(h("dt", {}, "Name"), h("dd", { class: "small" }, "None given."));
    return item;
  }

  const known = new Map<string, AdminPerson>();
  const append = (people: AdminPerson[]) => {
    for (const p of people) known.set(p.personId, p);
    list.append(...people.map(row));
  };
  append(first.body.people as AdminPerson[]);

  more.addEventListener("click", () => {
    void whileBusy(more, "Loading…", async () => {
      const answer = await askAdmin(
        alert,
        "GET",
        `/auth/people/queue?limit=${PAGE}&cursor=${encodeURIComponent(next ?? "")}`,
      );
      if (answer?.status !== 200) return;
      const people = answer.body.people as AdminPerson[];
      next = answer.body.next as string | null;
      append(people);
      footer();
      shown.textContent = `Showing ${boxes().length} of ${answer.body.waiting as number} waiting.`;
      const firstNew = people[0];
      if (firstNew !== undefined) document.getElementById(`select-${firstNew.personId}`)?.focus();
    });
  });

  const decideSelected = (control: HTMLButtonElement, decision: Decision, busy: string) =>
    control.addEventListener("click", () => {
      const people = selected().flatMap((b) => {
        const found = known.get(b.closest<HTMLElement>("[data-person]")?.dataset.person ?? "");
        return found === undefined ? [] : [found];
      });
      if (people.length === 0) {
        said.textContent = "Select the requests to decide first.";
        return;
      }
      void whileBusy(control, busy, () => decide(people, decision, (panel) => bar.before(panel)));
    });
  decideSelected(approveAll, "approved", "Approving…");
  decideSelected(rejectAll, "rejected", "Rejecting…");

  view(
    title(waiting),
    paragraph(
      "People who asked for access, oldest first. Approve or reject each one, or select several and decide them at once.",
    ),
    alert.element,
    list,
    bar,
    said,
    more,
    shown,
    // The apps that registered themselves wait here too, after the people.
    appQueue(me).element,
  );
  footer();
});
