/**
 * `/invite`: letting people in before they ask. One address with what it will have (projects,
 * groups, role, a note), a CSV file of them checked row by row before anything is done, and the
 * invitations not yet taken up, each to send again or revoke. Inviting asks the administrator to
 * confirm it's them first when their sign-in is over 5 minutes old, in place, and then goes ahead.
 */
import type { Person } from "../shared/api";
import { askAdmin, forAdministrators, section } from "../reviewers/door";
import { ROLE_WORDS } from "../reviewers/people-words";
import { givesWords, standingWords, typedList, type InvitationView } from "../reviewers/invitation-words";
import { fileSection } from "../reviewers/invite-file";
import { askConfirmed } from "../reviewers/confirmed";
import { TRY_AGAIN } from "../shared/messages";
import { button, choice, field, h, linkButton, paragraph, textArea, unseen, view, whileBusy } from "../shared/ui";
import { INVITATION_DAYS, INVITATION_NOTE_MAX } from "../../../functions/src/core/model/invitation";

function oneSection(me: Person, list: ListSection): HTMLElement {
  const where = section("invite-one", "Invite someone");
  const address = field({ label: "Email address", name: "address", type: "email", autocomplete: "off" });
  const name = field({ label: "Name", name: "name", optional: true, hint: "As they'll be shown. They can change it." });
  const projects = field({
    label: "Projects",
    name: "projects",
    optional: true,
    hint: "Separate them with commas: “calendar, location”. * is every project.",
  });
  const groups = field({ label: "Groups", name: "groups", optional: true, hint: "Separate them with commas." });
  const role = choice({
    label: "Role",
    name: "role",
    choices: Object.entries(ROLE_WORDS) as Array<[string, string]>,
    value: "user",
  });
  const note = textArea({
    label: "A note to them",
    name: "note",
    optional: true,
    maxlength: INVITATION_NOTE_MAX,
    hint: "Put in the email, as you write it.",
  });
  const submit = button("Invite", { type: "submit" });
  const form = h(
    "form",
    { novalidate: true, "aria-labelledby": "invite-one" },
    address.element,
    name.element,
    projects.element,
    groups.element,
    role.element,
    note.element,
    submit,
  );
  where.body.append(
    paragraph(
      `They get an email that says who invited them and links to this site's sign-in page. When they sign in with that address, within ${INVITATION_DAYS} days, their account is ready: approved, with what you choose here. Nobody reviews them.`,
    ),
    form,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    address.setError(null);
    const typed = address.input.value.trim();
    if (!/^[^@\s]+@[^@\s]+$/.test(typed)) return address.setError("Enter an email address, like name@example.org.");
    void whileBusy(submit, "Inviting…", async () => {
      where.alert.show(null);
      const answer = await askConfirmed(me, where, form, "POST", "/auth/invitations", {
        address: typed,
        name: name.input.value,
        projects: typedList(projects.input.value),
        groups: typedList(groups.input.value),
        role: role.select.value,
        note: note.input.value,
      });
      if (answer === null) return;
      if (answer.status === 201) {
        form.reset();
        where.said(`Invited ${String(answer.body.address)}. The email is on its way.`);
        await list.load();
        return;
      }
      if (answer.body.reason === "address_held")
        return where.alert.show(
          "That address already has an account here. Give them what you meant to on their page instead.",
          linkButton("Find them", `/people?q=${encodeURIComponent(typed)}`),
        );
      if (answer.body.reason === "already_invited")
        return where.alert.show("That address has an invitation already: send it again below, or revoke it first.");
      if (answer.status === 400) return where.alert.show(`That can't be sent: ${String(answer.body.error)}.`);
      where.alert.show(TRY_AGAIN);
    });
  });
  return where.element;
}

interface ListSection {
  element: HTMLElement;
  load(): Promise<void>;
}

function listSection(me: Person): ListSection {
  const where = section(
    "invitations",
    "Invitations not taken up yet",
    paragraph("An invitation goes once the person signs in. An expired one can be sent again, for another 14 days."),
  );
  const items = h("ul", { class: "plain invitations" });
  where.body.append(items);

  function item(invitation: InvitationView): HTMLElement {
    const again = button(["Send again", unseen(` to ${invitation.address}`)], { kind: "secondary" });
    const revoke = button(["Revoke", unseen(` the invitation of ${invitation.address}`)], { kind: "link" });
    const li = h(
      "li",
      { class: "invitation" },
      h(
        "p",
        { class: "who" },
        invitation.name === "" ? invitation.address : `${invitation.name} (${invitation.address})`,
      ),
      h("p", { class: "small" }, givesWords(invitation)),
      h("p", { class: "small" }, standingWords(invitation)),
      h("div", { class: "actions" }, again, revoke),
    );
    const path = `/auth/invitations/${encodeURIComponent(invitation.id)}`;
    again.addEventListener(
      "click",
      () =>
        void whileBusy(again, "Sending…", async () => {
          where.alert.show(null);
          const answer = await askConfirmed(me, where, li, "POST", `${path}/resend`, {});
          if (answer === null) return;
          if (answer.status === 429)
            return where.alert.show("It was sent a moment ago. You can send it again in a few minutes.");
          if (answer.status === 409)
            return where.alert.show("That address has an account now, so the invitation is gone.");
          if (answer.status !== 200) return where.alert.show(TRY_AGAIN);
          await load();
          where.said(`Sent the invitation to ${invitation.address} again.`);
        }),
    );
    revoke.addEventListener(
      "click",
      () =>
        void whileBusy(revoke, "Revoking…", async () => {
          where.alert.show(null);
          const answer = await askAdmin(where.alert, "DELETE", path);
          if (answer === null) return;
          if (answer.status !== 200 && answer.status !== 404) return where.alert.show(TRY_AGAIN);
          await load();
          where.said(`Revoked the invitation of ${invitation.address}. That address can't sign in with it any more.`);
        }),
    );
    return li;
  }

  async function load(): Promise<void> {
    const answer = await askAdmin(where.alert, "GET", "/auth/invitations?limit=200");
    if (answer === null) return;
    if (answer.status !== 200) return where.alert.show(TRY_AGAIN);
    const invitations = answer.body.invitations as InvitationView[];
    items.replaceChildren(
      ...(invitations.length === 0 ? [h("li", { class: "small" }, "There are none.")] : invitations.map(item)),
    );
  }
  return { element: where.element, load };
}

forAdministrators(async (me) => {
  const list = listSection(me);
  view(
    "Invite people",
    paragraph("Let people in before they ask: one at a time, or a list from a file."),
    oneSection(me, list),
    fileSection(me, list.load),
    list.element,
    h("p", {}, h("a", { href: "/people" }, "Back to People")),
  );
  await list.load();
});
