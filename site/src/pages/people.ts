/**
 * `/people`: everyone the service knows, found by the start of a word of their name or address,
 * and by status, role and project; newest or oldest first, a page at a time ("Show more"), each
 * linking to their page. The search is kept in the address, so Back from a person returns to it.
 */
import { askAdmin, forAdministrators, personPage } from "../reviewers/door";
import { projectName, ROLE_WORDS, STATUS_WORDS, whoIs, type AdminPerson } from "../reviewers/people-words";
import { alertBox, button, choice, field, h, linkButton, paragraph, view, whileBusy } from "../shared/ui";

const PAGE = 25;

function summary(person: AdminPerson): string {
  const projects = person.projects.map(projectName).join(", ") || "no projects";
  return [person.name === "" ? null : person.email, STATUS_WORDS[person.status], ROLE_WORDS[person.role], projects]
    .filter(Boolean)
    .join(" · ");
}

function row(person: AdminPerson): HTMLElement {
  return h(
    "li",
    { class: "person-row" },
    h("a", { href: personPage(person.personId), class: "who" }, whoIs(person)),
    h("p", { class: "small" }, summary(person)),
  );
}

forAdministrators(() => {
  const here = new URL(window.location.href);
  const given = (name: string) => here.searchParams.get(name) ?? "";
  const alert = alertBox();
  const search = field({
    label: "Name or email address",
    name: "q",
    type: "search",
    optional: true,
    value: given("q"),
    hint: "The start of any word of it: “lov”, “ada@”, “example.org”.",
  });
  const status = choice({
    label: "Status",
    name: "status",
    value: given("status"),
    choices: [["", "Any status"], ...(Object.entries(STATUS_WORDS) as Array<[string, string]>)],
  });
  const role = choice({
    label: "Role",
    name: "role",
    value: given("role"),
    choices: [["", "Any role"], ...(Object.entries(ROLE_WORDS) as Array<[string, string]>)],
  });
  const project = field({ label: "Project", name: "project", optional: true, value: given("project") });
  const order = choice({
    label: "Order",
    name: "order",
    value: given("order") || "newest",
    choices: [
      ["newest", "Newest first"],
      ["oldest", "Oldest first"],
    ],
  });
  const submit = button("Search", { type: "submit" });
  const form = h(
    "form",
    { role: "search", novalidate: true, "aria-label": "People" },
    search.element,
    h("div", { class: "filters" }, status.element, role.element, project.element, order.element),
    submit,
  );
  const results = h("ul", { class: "plain people" });
  const found = h("p", { role: "status", class: "small" });
  const more = button("Show more", { kind: "secondary" });
  let next: string | null = null;
  let query = "";

  /** The search as the form has it: the list's query, and the address of this page for it. */
  function asked(): URLSearchParams {
    const q = new URLSearchParams();
    const set = (name: string, value: string) => value.trim() !== "" && q.set(name, value.trim());
    set("q", search.input.value);
    set("status", status.select.value);
    set("role", role.select.value);
    set("project", project.input.value);
    if (order.select.value !== "newest") q.set("order", order.select.value);
    return q;
  }

  async function load(fresh: boolean): Promise<void> {
    alert.show(null);
    const cursor = fresh || next === null ? "" : `&cursor=${encodeURIComponent(next)}`;
    const answer = await askAdmin(
      alert,
      "GET",
      `/auth/people?${query}${query === "" ? "" : "&"}limit=${PAGE}${cursor}`,
    );
    if (answer === null) return;
    if (answer.status === 400)
      return alert.show("That search can't be made. Check the project's name, and try fewer words.");
    const people = answer.body.people as AdminPerson[];
    next = answer.body.next as string | null;
    if (fresh) results.replaceChildren();
    results.append(...people.map(row));
    more.hidden = next === null;
    const n = results.childElementCount;
    found.textContent =
      n === 0
        ? "Nobody matches."
        : next === null
          ? `${n} ${n === 1 ? "person" : "people"} found.`
          : `Showing the first ${n}.`;
    if (!fresh) results.children[n - people.length]?.querySelector("a")?.focus();
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const q = asked();
    query = q.toString();
    window.history.replaceState(null, "", `/people${query === "" ? "" : `?${query}`}`);
    void whileBusy(submit, "Searching…", () => load(true));
  });
  more.addEventListener("click", () => void whileBusy(more, "Loading…", () => load(false)));

  view(
    "People",
    paragraph("Everyone who has an account here or has asked for one. Open a person to change what they can use."),
    h(
      "p",
      { class: "actions" },
      linkButton("Invite people", "/invite"),
      " ",
      linkButton("Audit trail", "/audit"),
      " ",
      linkButton("Service health", "/health"),
    ),
    form,
    alert.element,
    found,
    results,
    more,
  );
  query = asked().toString();
  more.hidden = true;
  void load(true);
});
