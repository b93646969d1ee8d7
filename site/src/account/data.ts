/**
 * A person's own data, on `/account`: their name to change; a copy of everything the service
 * keeps about them, as one JSON file; and deleting their account, after a confirmation that says
 * what goes. A copy and a deletion ask them to confirm it's them when their sign-in is older than
 * the step-up window (core/model/step-up in the functions), in place, and then go ahead.
 */
import { ask, type Answer, type Person } from "../shared/api";
import { erasureWords, TRY_AGAIN } from "../shared/messages";
import { withStepUp } from "../sign-in/step-up";
import { alertBox, button, confirmPanel, field, h, paragraph, whileBusy } from "../shared/ui";
import { PAST_STEP_UP } from "../../../functions/src/core/model/step-up";
import { NAME_MAX } from "../../../functions/src/core/model/person";

const STALE = `You signed in ${PAST_STEP_UP} ago.`;

/** Asks, and once more after the person confirms it's them when the service asks for that first. */
export async function askConfirmed(
  alert: ReturnType<typeof alertBox>,
  near: HTMLElement,
  me: Person,
  method: "GET" | "POST" | "DELETE" | "PATCH",
  path: string,
  body?: Record<string, unknown>,
): Promise<Answer | null | "cancelled"> {
  return withStepUp(
    () => ask(alert, method, path, body),
    (panel) => near.after(panel),
    me,
    STALE,
  );
}

export function nameSection(me: Person, renamed: (person: Person) => void): HTMLElement {
  const heading = h("h2", { id: "your-name" }, "Your name");
  const alert = alertBox();
  const name = field({
    label: "Name",
    name: "name",
    autocomplete: "name",
    value: me.name,
    maxlength: NAME_MAX,
    optional: true,
  });
  name.input.setAttribute("spellcheck", "true");
  name.input.setAttribute("autocapitalize", "words");
  const save = button("Save name", { kind: "secondary", type: "submit" });
  const status = h("p", { role: "status", class: "small" });
  const form = h("form", { novalidate: true }, alert.element, name.element, save, status);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    alert.show(null);
    name.setError(null);
    status.textContent = "";
    void whileBusy(save, "Saving…", async () => {
      const answer = await ask(alert, "PATCH", "/auth/account", { name: name.input.value });
      if (answer === null) return;
      if (answer.status === 400) return name.setError(`Your name can be up to ${NAME_MAX} characters.`);
      if (answer.status !== 200) return alert.show(TRY_AGAIN);
      const person = answer.body as unknown as Person;
      name.input.value = person.name;
      renamed(person);
      status.textContent = person.name === "" ? "Your name is removed." : `Saved: ${person.name}.`;
    });
  });
  return h(
    "section",
    { "aria-labelledby": "your-name" },
    heading,
    paragraph("How you're named to the people who review requests and to the sites you sign in to."),
    form,
  );
}

/** Saves `data` as a file, as a download link the page clicks for the person. */
function saveFile(data: Record<string, unknown>): string {
  const day = typeof data.exportedAt === "string" ? data.exportedAt.slice(0, 10) : "today";
  const filename = `account-data-${day}.json`;
  const url = URL.createObjectURL(new Blob([JSON.stringify(data, null, 2)], { type: "application/json" }));
  const link = h("a", { href: url, download: filename, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  return filename;
}

export function dataSection(me: Person): HTMLElement {
  const heading = h("h2", { id: "your-data" }, "Your data");
  const alert = alertBox();
  const status = h("p", { role: "status", class: "small" });
  const download = button("Download my data", { kind: "secondary" });
  download.addEventListener("click", () => {
    alert.show(null);
    status.textContent = "";
    void whileBusy(download, "Preparing your file…", async () => {
      const answer = await askConfirmed(alert, download, me, "GET", "/auth/account/data");
      if (answer === null) return;
      if (answer === "cancelled") return void (status.textContent = "Nothing was downloaded.");
      if (answer.status !== 200) return alert.show(TRY_AGAIN);
      status.textContent = `Downloaded ${saveFile(answer.body)}.`;
    });
  });
  return h(
    "section",
    { "aria-labelledby": "your-data" },
    heading,
    paragraph(
      "One file with everything we keep about you: your details, your accounts, where you've signed in, your passkeys, and every change to your account and who made it.",
    ),
    alert.element,
    download,
    status,
  );
}

/** What deleting an account takes away, said before it is done. */
const WHAT_GOES = [
  "You're signed out everywhere, on every site of this service.",
  "Your sign-in accounts, passkeys, details and history are deleted.",
  "Your address is free: to come back, you'd ask for access afresh.",
  "This can't be undone.",
];

export function deleteSection(me: Person, deleted: (finishing: string) => void): HTMLElement {
  return h(
    "section",
    { "aria-labelledby": "delete-account" },
    h("h2", { id: "delete-account" }, "Delete your account"),
    paragraph("Delete your account and everything we keep about you."),
    ...confirmPanel({
      id: "confirm-delete",
      open: "Delete my account…",
      question: () => "Delete your account?",
      lines: WHAT_GOES,
      yes: "Delete my account",
      no: "Keep my account",
      kept: "Your account is kept.",
      busy: "Deleting…",
      async go({ alert, panel, keep }) {
        const answer = await askConfirmed(alert, panel, me, "DELETE", "/auth/account");
        if (answer === null) return;
        if (answer === "cancelled") return keep();
        if (answer.status === 200) return deleted(erasureWords(answer.body));
        if (answer.status === 409)
          return alert.show(
            "You're the last administrator: make someone else an administrator before you delete your account.",
          );
        alert.show(TRY_AGAIN);
      },
    }),
  );
}
