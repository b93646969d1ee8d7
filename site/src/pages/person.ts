/**
 * `/person?id=<personId>`: one person, for an administrator: what they proved when they came and
 * their note; their status, role, projects and groups; their ways in; their sessions and
 * passkeys; and their history. Every change is a PATCH of the person; one that widens access
 * asks the administrator to confirm it's them first when their sign-in is over 5 minutes old,
 * in place, and then goes ahead.
 */
import type { Person } from "../shared/api";
import { askAdmin, forAdministrators, type Section } from "../reviewers/door";
import { erasureWords, TRY_AGAIN } from "../shared/messages";
import { accessSections, type Change } from "../reviewers/person-access";
import { historySection } from "../reviewers/person-history";
import { appsSection, passkeysSection, sessionsSection } from "../reviewers/person-sessions";
import {
  ago,
  exactly,
  proved,
  suggestionWords,
  syncErrorWords,
  whoIs,
  type AdminPerson,
} from "../reviewers/people-words";
import { withStepUp } from "../sign-in/step-up";
import { alertBox, confirmPanel, h, linkButton, paragraph, retitle, view } from "../shared/ui";
import { PAST_STEP_UP } from "../../../functions/src/core/model/step-up";

const id = new URL(window.location.href).searchParams.get("id") ?? "";
const path = `/auth/people/${encodeURIComponent(id)}`;

function about(person: AdminPerson): HTMLElement {
  return h(
    "dl",
    { class: "details" },
    h("dt", {}, "Name"),
    h("dd", {}, person.name === "" ? "None given" : person.name),
    h("dt", {}, "Came"),
    h(
      "dd",
      {},
      proved(person.origin),
      ", ",
      h("time", { datetime: person.createdAt }, ago(person.createdAt, new Date())),
      ` (${exactly(person.createdAt)})`,
    ),
    h("dt", {}, "Their note"),
    // What they wrote, as text: never parsed as HTML.
    h("dd", { class: person.note === "" ? "" : "note" }, person.note === "" ? "None" : person.note),
    ...(person.suggestion === null
      ? []
      : [h("dt", {}, "Suggested"), h("dd", { class: "suggestion" }, suggestionWords(person.suggestion) ?? "")]),
  );
}

function notThere(title: string, words: string): void {
  view(title, paragraph(words), linkButton("Find someone else", "/people", "primary"));
}

forAdministrators(async (me: Person) => {
  if (id === "")
    return notThere("Nobody was chosen", "This page shows one person: choose them from the list of people.");
  const alert = alertBox();
  const first = await askAdmin(alert, "GET", path);
  if (first === null) return view("We can't show this person right now", alert.element);
  if (first.status === 404)
    return notThere(
      "There's nobody here",
      "Nobody has this page: they may have been removed, or the link is cut short.",
    );
  if (first.status !== 200) return view("We can't show this person right now", paragraph(TRY_AGAIN));
  let person = first.body as unknown as AdminPerson;
  const summary = h("div", {});
  const history = historySection(person.personId);

  const change: Change = async (body, done, where: Section, near) => {
    where.alert.show(null);
    const answer = await withStepUp(
      () => askAdmin(where.alert, "PATCH", path, body),
      (p) => near.after(p),
      me,
    );
    if (answer === "cancelled") {
      where.said("Nothing was changed.");
      return false;
    }
    if (answer === null) return false;
    if (answer.status === 200) {
      person = answer.body as unknown as AdminPerson;
      draw();
      where.said(done);
      const unsynced = syncErrorWords(answer.body.providerSyncErrors as Array<{ uid: string }>);
      if (unsynced !== null) where.alert.show(unsynced);
      void history.reload();
      return true;
    }
    if (answer.status === 404) where.alert.show("This person is no longer there: they may have been removed.");
    else if (answer.status === 409 || answer.status === 400)
      where.alert.show(`Not changed: ${String(answer.body.error)}.`);
    else where.alert.show(TRY_AGAIN);
    return false;
  };

  /** "Delete this person": everything kept about them, after a confirmation that says what goes. */
  function eraseSection(): HTMLElement {
    return h(
      "section",
      { "aria-labelledby": "erase" },
      h("h2", { id: "erase" }, "Delete this person"),
      paragraph("Delete their account and everything kept about them, at their request or when they've left."),
      ...confirmPanel({
        id: "confirm-erase",
        open: "Delete this person…",
        question: () => `Delete ${whoIs(person)}?`,
        lines: [
          "They're signed out everywhere, and their sign-in accounts, passkeys, details and history are deleted.",
          "Their address is free: they could ask for access again, as a stranger.",
          "Their history keeps one line: that you deleted them. This can't be undone.",
        ],
        yes: "Delete this person",
        no: "Keep them",
        kept: "Nothing was deleted.",
        busy: "Deleting…",
        async go({ alert, panel, keep }) {
          const why = `Deleting someone can't be undone, and you signed in ${PAST_STEP_UP} ago.`;
          const answer = await withStepUp(
            () => askAdmin(alert, "DELETE", path),
            (step) => panel.after(step),
            me,
            why,
          );
          if (answer === "cancelled") return keep();
          if (answer === null) return;
          if (answer.status === 200 || answer.status === 404) {
            const finishing = answer.status === 200 ? erasureWords(answer.body) : "";
            return view(
              "Deleted",
              paragraph(`${whoIs(person)} is deleted, with everything kept about them.`),
              finishing !== "" && paragraph(finishing),
              linkButton("All people", "/people", "primary"),
            );
          }
          if (answer.status === 409)
            return alert.show("They're the last administrator: make someone else an administrator first.");
          alert.show(TRY_AGAIN);
        },
      }),
    );
  }

  const sections = accessSections(change);
  function draw(): void {
    retitle(whoIs(person));
    summary.replaceChildren(about(person));
    sections.draw(person);
  }
  const reloadHistory = () => void history.reload();
  view(
    whoIs(person),
    h(
      "p",
      { class: "aside crumbs" },
      h("a", { href: "/people" }, "All people"),
      " · ",
      h("a", { href: "/review" }, "Review requests"),
    ),
    summary,
    ...sections.elements,
    sessionsSection(person.personId, reloadHistory),
    appsSection(person.personId),
    passkeysSection(person.personId, reloadHistory),
    history.element,
    eraseSection(),
  );
  draw();
});
