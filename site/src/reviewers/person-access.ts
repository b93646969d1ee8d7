/**
 * A person's page, what they may do and how they sign in: status and role (buttons for each
 * change), projects and groups, addresses and phone numbers (each a list to add to and remove
 * from), and their accounts at the identity provider. Every change is a PATCH of the person,
 * made by the page's `change`, which says what became of it.
 */
import { section, type Section } from "./door";
import { listEditor } from "./list-editor";
import { projectName, ROLE_WORDS, STATUS_WORDS, type AdminPerson } from "./people-words";
import { button, h, paragraph, whileBusy } from "../shared/ui";

/**
 * Sends a change of the person; true once the service took it (the page is redrawn then). `near`:
 * what asked for it, after which the page asks the administrator to confirm it's them, if it must.
 */
export type Change = (body: Partial<AdminPerson>, done: string, where: Section, near: HTMLElement) => Promise<boolean>;

const LABEL = /^.{1,100}$/u;
const PHONE = /^\+[1-9][0-9]{6,14}$/;

/** A button that changes the person; its row is where a question about it goes. */
function action(label: string, kind: "primary" | "secondary", work: (near: HTMLElement) => Promise<unknown>) {
  const control = button(label, { kind });
  control.addEventListener(
    "click",
    () => void whileBusy(control, "Saving…", async () => void (await work(control.parentElement ?? control))),
  );
  return control;
}

function access(person: AdminPerson, change: Change, where: Section): Array<Node | null> {
  const status = (to: AdminPerson["status"], label: string, kind: "primary" | "secondary", done: string) =>
    person.status === to ? null : action(label, kind, (near) => change({ status: to }, done, where, near));
  const role =
    person.role === "admin"
      ? action("Make member", "secondary", (near) =>
          change({ role: "user" }, "Now a member: no longer an administrator.", where, near),
        )
      : action("Make administrator", "secondary", (near) =>
          change({ role: "admin" }, "Now an administrator.", where, near),
        );
  const every = person.projects.includes("*")
    ? null
    : action("Give every project", "secondary", (near) =>
        change({ projects: [...person.projects, "*"] }, "Added every project.", where, near),
      );
  const label = (what: string) => (typed: string) =>
    LABEL.test(typed) ? { item: typed } : { error: `Type the ${what}'s name, up to 100 characters.` };
  return [
    h(
      "dl",
      { class: "details" },
      h("dt", {}, "Status"),
      h("dd", {}, STATUS_WORDS[person.status]),
      h("dt", {}, "Role"),
      h("dd", {}, ROLE_WORDS[person.role]),
    ),
    h(
      "div",
      { class: "actions" },
      status("approved", "Approve", "primary", "Approved: they can sign in now."),
      status(
        "rejected",
        person.status === "approved" ? "Take away access" : "Reject",
        "secondary",
        "Rejected: they can't sign in, and their sessions end.",
      ),
      role,
    ),
    h("h3", {}, "Projects"),
    listEditor({
      label: "Projects",
      noun: "project",
      items: person.projects,
      show: projectName,
      empty: person.role === "admin" ? "None given: as an administrator, they can use every project." : "None yet.",
      add: { label: "Add a project", hint: "Its name, like startpage.", check: label("project") },
      save: (projects, done, near) => change({ projects }, done, where, near),
    }),
    every,
    h("h3", {}, "Groups"),
    listEditor({
      label: "Groups",
      noun: "group",
      items: person.groups,
      empty: "None.",
      add: { label: "Add a group", check: label("group") },
      save: (groups, done, near) => change({ groups }, done, where, near),
    }),
  ];
}

function waysIn(person: AdminPerson, change: Change, where: Section): Node[] {
  return [
    h("h3", {}, "Email addresses"),
    listEditor({
      label: "Email addresses",
      noun: "address",
      items: person.emails,
      empty: "None.",
      add: {
        label: "Add an email address",
        type: "email",
        check: (typed) =>
          /^[^\s@]+@[^\s@]+$/.test(typed)
            ? { item: typed.toLowerCase() }
            : { error: "Enter an email address, like name@example.com." },
      },
      save: (emails, done, near) => change({ emails }, done, where, near),
    }),
    h("h3", {}, "Phone numbers"),
    listEditor({
      label: "Phone numbers",
      noun: "number",
      items: person.phones,
      empty: "None.",
      add: {
        label: "Add a phone number",
        type: "tel",
        hint: "With + and the country code, like +447700900123.",
        check: (typed) => {
          const number = typed.replace(/[\s()-]/g, "");
          return PHONE.test(number)
            ? { item: number }
            : { error: "Enter the number with + and the country code, like +447700900123." };
        },
      },
      save: (phones, done, near) => change({ phones }, done, where, near),
    }),
    h("h3", {}, "Accounts at the identity provider"),
    person.uids.length === 0
      ? paragraph("None yet: they haven't signed in.")
      : h("ul", { class: "plain uids" }, ...person.uids.map((uid) => h("li", {}, uid))),
  ];
}

/** The two sections, and how to draw them again for the person as the service now has them. */
export function accessSections(change: Change): { elements: HTMLElement[]; draw(person: AdminPerson): void } {
  const what = section("access", "Access");
  const how = section(
    "ways-in",
    "Ways in",
    paragraph("The addresses and numbers they can sign in with, and their accounts at the identity provider."),
  );
  return {
    elements: [what.element, how.element],
    draw(person) {
      what.body.replaceChildren(...access(person, change, what).filter((n): n is Node => n !== null));
      how.body.replaceChildren(...waysIn(person, change, how));
    },
  };
}
