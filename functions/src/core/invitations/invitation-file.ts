/**
 * A file of invitations (CSV, RFC 4180): a header naming its columns, then one address a row.
 * Read whole before anything is done: a file with a bad row invites nobody, and says which rows
 * and why, by line. A good file is applied row by row, each row one invitation in its own
 * transaction (core/invitations/invitations), so running it again invites nobody twice.
 */
import type { Role } from "../model/person";
import type { InvitationTerms } from "../model/invitation";
import { canonicalEmail } from "../email-address";
import { AppError } from "../errors";
import { cleanTerms } from "./invitations";

/** The most rows one file may hold. */
export const FILE_ROWS_MAX = 5000;
/** The columns a file may have; `address` (or `email`) is the one it must. */
const COLUMNS = ["address", "name", "projects", "groups", "role", "note"] as const;
type Column = (typeof COLUMNS)[number];

export interface FileRow {
  /** The line of the file the row starts on (the header is line 1). */
  line: number;
  terms: InvitationTerms;
}

export interface FileProblem {
  line: number;
  error: string;
}

/** Splits CSV text into records of fields, each with the line it starts on. */
export function csvRecords(text: string): {
  records: Array<{ line: number; fields: string[] }>;
  problem?: FileProblem;
} {
  const records: Array<{ line: number; fields: string[] }> = [];
  let fields: string[] = [];
  let field = "";
  let quoted = false;
  let line = 1;
  let start = 1;
  let quoteLine = 0;
  const end = () => {
    fields.push(field);
    if (!(fields.length === 1 && fields[0]?.trim() === "")) records.push({ line: start, fields });
    fields = [];
    field = "";
  };
  const body = text.replace(/^\uFEFF/u, "");
  for (let i = 0; i < body.length; i++) {
    const c = body[i] as string;
    if (quoted) {
      if (c === '"' && body[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else {
        if (c === "\n") line++;
        field += c;
      }
    } else if (c === '"' && field.trim() === "") {
      quoted = true;
      field = "";
      quoteLine = line;
    } else if (c === ",") {
      fields.push(field);
      field = "";
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && body[i + 1] === "\n") i++;
      end();
      line++;
      start = line;
    } else field += c;
  }
  if (quoted) return { records, problem: { line: quoteLine, error: "a quoted field is never closed" } };
  if (field !== "" || fields.length > 0) end();
  return { records };
}

const list = (cell: string) =>
  cell
    .split(";")
    .map((v) => v.trim())
    .filter((v) => v !== "");

/** One row's terms, or what is wrong with it. */
function rowTerms(cells: Partial<Record<Column, string>>): InvitationTerms | string {
  const address = canonicalEmail((cells.address ?? "").trim());
  if (address === null) return "the address is not an email address";
  const projects = list(cells.projects ?? "");
  const groups = list(cells.groups ?? "");
  if ([...projects, ...groups].some((v) => v.length > 100)) return "a project or group is longer than 100 characters";
  const role = (cells.role ?? "").trim().toLowerCase() || "user";
  if (role !== "user" && role !== "admin") return 'the role is "user" or "admin"';
  const name = (cells.name ?? "").trim();
  const note = (cells.note ?? "").trim();
  try {
    // The limits every invitation keeps, checked before any row is applied.
    return cleanTerms({ address, name, projects, groups, role: role as Role, note });
  } catch (err) {
    if (err instanceof AppError) return err.detail ?? err.message;
    throw err;
  }
}

/** The file's rows, or every problem it has (then nothing of it is to be done). */
export function readInvitationFile(text: string): { rows: FileRow[]; problems: FileProblem[] } {
  const { records, problem } = csvRecords(text);
  if (problem) return { rows: [], problems: [problem] };
  const [header, ...data] = records;
  if (header === undefined) return { rows: [], problems: [{ line: 1, error: "the file is empty" }] };
  const names = header.fields.map((f) => {
    const name = f.trim().toLowerCase();
    return name === "email" ? "address" : name;
  });
  const unknown = names.filter((n) => !(COLUMNS as readonly string[]).includes(n));
  if (unknown.length > 0 || !names.includes("address"))
    return {
      rows: [],
      problems: [
        {
          line: header.line,
          error: `the first line names the columns: address (required), ${COLUMNS.slice(1).join(", ")}${unknown.length > 0 ? `; not ${unknown.join(", ")}` : ""}`,
        },
      ],
    };
  if (data.length > FILE_ROWS_MAX)
    return { rows: [], problems: [{ line: header.line, error: `a file holds at most ${FILE_ROWS_MAX} rows` }] };
  const rows: FileRow[] = [];
  const problems: FileProblem[] = [];
  const seen = new Map<string, number>();
  for (const record of data) {
    // A row with fewer cells than the header is refused like one with more: read as empty cells,
    // a row cut short (a lost comma, a line broken in two) would invite its address with no
    // projects, or someone as a user meant to be an admin, and say nothing.
    if (record.fields.length !== names.length) {
      const n = record.fields.length;
      problems.push({
        line: record.line,
        error: `it has ${n} field${n === 1 ? "" : "s"}; the header names ${names.length}`,
      });
      continue;
    }
    const cells = Object.fromEntries(names.map((n, i) => [n, record.fields[i] ?? ""])) as Partial<
      Record<Column, string>
    >;
    const terms = rowTerms(cells);
    if (typeof terms === "string") {
      problems.push({ line: record.line, error: terms });
      continue;
    }
    const earlier = seen.get(terms.address);
    if (earlier !== undefined) {
      problems.push({ line: record.line, error: `the address is on line ${earlier} too` });
      continue;
    }
    seen.set(terms.address, record.line);
    rows.push({ line: record.line, terms });
  }
  return { rows, problems };
}
