/**
 * The `/invite` page's file section: a CSV of people (address, name, projects, groups, role,
 * note), checked first with a dry run that shows what each row would do and every bad row by its
 * line; then invited, all of it, or none when a row is bad. Running the same file again invites
 * nobody twice.
 */
import { FileBody, type Person } from "../shared/api";
import { section } from "./door";
import { OUTCOME_WORDS, WOULD_WORDS } from "./invitation-words";
import { askConfirmed } from "./confirmed";
import { TRY_AGAIN } from "../shared/messages";
import { button, h, paragraph, whileBusy } from "../shared/ui";

interface RowView {
  line: number;
  address: string;
  outcome: keyof typeof OUTCOME_WORDS;
}
interface Problem {
  line: number;
  error: string;
}

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

function rowsTable(rows: RowView[], problems: Problem[], words: Record<RowView["outcome"], string>): HTMLElement {
  const all = [
    ...problems.map((p) => ({ line: p.line, address: "", says: `Can't be invited: ${p.error}`, bad: true })),
    ...rows.map((r) => ({ line: r.line, address: r.address, says: words[r.outcome], bad: false })),
  ].sort((a, b) => a.line - b.line);
  return h(
    "table",
    { class: "rows" },
    h("caption", { class: "visually-hidden" }, "The file's rows"),
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", { scope: "col" }, "Line"),
        h("th", { scope: "col" }, "Address"),
        h("th", { scope: "col" }, "What happens"),
      ),
    ),
    h(
      "tbody",
      {},
      ...all.map((r) =>
        h(
          "tr",
          { class: r.bad ? "bad" : "" },
          h("td", {}, String(r.line)),
          h("td", {}, r.address),
          h("td", {}, r.says),
        ),
      ),
    ),
  );
}

export function fileSection(me: Person, invited: () => Promise<void>): HTMLElement {
  const where = section("invite-file", "Invite from a file");
  const input = h("input", { id: "invite-file-input", type: "file", accept: ".csv,text/csv", name: "file" });
  const check = button("Check the file", { type: "submit" });
  const form = h(
    "form",
    { novalidate: true, "aria-labelledby": "invite-file" },
    h(
      "div",
      { class: "field" },
      h("label", { for: "invite-file-input" }, "A CSV file"),
      h(
        "p",
        { class: "hint", id: "invite-file-hint" },
        "The first line names the columns: address, then any of name, projects, groups, role (member or admin: “user” or “admin”) and note. Every row has a field for each column, empty or not. Separate projects and groups with semicolons.",
      ),
      input,
    ),
    check,
  );
  input.setAttribute("aria-describedby", "invite-file-hint");
  const result = h("div", { class: "file-result" });
  where.body.append(
    paragraph("We check the whole file first and show you what each row would do. Nothing is sent until you say so."),
    form,
    result,
  );

  let text = "";
  const upload = (dryRun: boolean) =>
    askConfirmed(me, where, form, "POST", `/auth/invitations/file?dryRun=${dryRun}`, new FileBody("text/csv", text));

  async function run(go: HTMLButtonElement): Promise<void> {
    const answer = await upload(false);
    if (answer === null) return;
    if (answer.status === 400) return where.alert.show(String(answer.body.error));
    if (answer.status !== 200) return where.alert.show(TRY_AGAIN);
    const counts = answer.body.counts as Record<RowView["outcome"], number>;
    go.remove();
    result.replaceChildren(rowsTable(answer.body.rows as RowView[], [], OUTCOME_WORDS));
    where.said(
      `Invited ${count(counts.invited, "person", "people")}. ${count(counts["already-invited"], "was", "were")} invited already, and ${count(counts.held, "has", "have")} an account.`,
    );
    await invited();
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    where.alert.show(null);
    const file = input.files?.[0];
    if (file === undefined) return where.alert.show("Choose a CSV file first.");
    void whileBusy(check, "Checking…", async () => {
      text = await file.text();
      const answer = await upload(true);
      if (answer === null) return;
      if (answer.status === 413) return where.alert.show("That file is too large. Split it into smaller ones.");
      if (answer.status !== 200) return where.alert.show(TRY_AGAIN);
      const rows = answer.body.rows as RowView[];
      const problems = answer.body.problems as Problem[];
      const counts = answer.body.counts as Record<RowView["outcome"], number>;
      const go = button(`Invite ${count(counts.invited, "person", "people")}`);
      go.addEventListener("click", () => void whileBusy(go, "Inviting…", () => run(go)));
      const summary =
        problems.length > 0
          ? `${count(problems.length, "row needs", "rows need")} fixing first: nobody is invited from a file with a bad row.`
          : `${count(counts.invited, "person", "people")} will be invited.`;
      result.replaceChildren(
        h("p", { role: "status" }, summary),
        rowsTable(rows, problems, WOULD_WORDS),
        ...(problems.length === 0 && counts.invited > 0 ? [go] : []),
      );
    });
  });
  return where.element;
}
