/**
 * A few DOM helpers for pages that are mostly a form at a time. Each step of a journey is a view:
 * it replaces the content of <main>, names the page after its heading and moves focus to that
 * heading, so a screen reader announces where the person now is and the keyboard starts there.
 */
type Child = Node | string | null | false | undefined;
type Attrs = Record<string, string | boolean | ((event: Event) => void) | undefined>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (typeof value === "function") el.addEventListener(key.replace(/^on/, ""), value);
    else el.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children) if (child !== null && child !== false && child !== undefined) el.append(child);
  return el;
}

const SITE = "Account";

function main(): HTMLElement {
  return document.getElementById("main") as HTMLElement;
}

/** Shows a step: its heading (focused, so it is announced) and its content. */
export function view(title: string, ...content: Child[]): void {
  const heading = h("h1", { tabindex: "-1" }, title);
  main().replaceChildren(
    heading,
    ...content.filter((c): c is Node | string => c !== null && c !== false && c !== undefined),
  );
  document.title = `${title} · ${SITE}`;
  heading.focus();
}

/** Names the step anew (its heading and the tab's title), where what it shows has changed under it. */
export function retitle(title: string): void {
  const heading = main().querySelector("h1");
  if (heading !== null) {
    heading.textContent = title;
    heading.removeAttribute("data-placeholder");
  }
  document.title = `${title} · ${SITE}`;
}

/** Words a screen reader says and the screen does not show: what a short control's label leaves to its place. */
export function unseen(text: string): HTMLSpanElement {
  return h("span", { class: "visually-hidden" }, text);
}

export function paragraph(...children: Child[]): HTMLParagraphElement {
  return h("p", {}, ...children);
}

export interface Field<Control extends HTMLInputElement | HTMLTextAreaElement = HTMLInputElement> {
  element: HTMLElement;
  input: Control;
  /** Shows a refusal under the field (announced, and tied to it), or clears it. */
  setError(message: string | null): void;
}

let fieldCount = 0;

interface FieldOptions {
  label: string;
  name: string;
  type?: string;
  autocomplete?: string;
  inputmode?: string;
  hint?: string;
  value?: string;
  /** Left empty, it is not asked for (the label says "optional"). */
  optional?: boolean;
  maxlength?: number;
}

/** A control with its label, hint and the place for its refusal, tied together for a screen reader. */
function labelled<Control extends HTMLInputElement | HTMLTextAreaElement>(
  id: string,
  control: Control,
  options: FieldOptions,
  after: Node[] = [],
): Field<Control> {
  const hintId = options.hint === undefined ? undefined : `${id}-hint`;
  const errorId = `${id}-error`;
  const describedBy = () => [hintId, ...after.map((n) => (n instanceof HTMLElement ? n.id : ""))].filter(Boolean);
  if (describedBy().length > 0) control.setAttribute("aria-describedby", describedBy().join(" "));
  if (options.maxlength !== undefined) control.setAttribute("maxlength", String(options.maxlength));
  const error = h("p", { id: errorId, class: "error", hidden: true });
  const element = h(
    "div",
    { class: "field" },
    h("label", { for: id }, options.label, options.optional ? h("span", { class: "optional" }, " (optional)") : null),
    options.hint === undefined ? null : h("p", { id: hintId, class: "hint" }, options.hint),
    control,
    ...after,
    error,
  );
  return {
    element,
    input: control,
    setError(message) {
      if (message === null) {
        error.hidden = true;
        error.textContent = "";
        control.removeAttribute("aria-invalid");
        control.setAttribute("aria-describedby", describedBy().join(" "));
        if (describedBy().length === 0) control.removeAttribute("aria-describedby");
        return;
      }
      error.textContent = message;
      error.hidden = false;
      control.setAttribute("aria-invalid", "true");
      control.setAttribute("aria-describedby", [...describedBy(), errorId].join(" "));
      control.focus();
    },
  };
}

export function field(options: FieldOptions): Field {
  const id = `f${++fieldCount}`;
  const input = h("input", {
    id,
    name: options.name,
    type: options.type ?? "text",
    autocomplete: options.autocomplete,
    inputmode: options.inputmode,
    value: options.value,
    required: !options.optional,
    spellcheck: "false",
    autocapitalize: "off",
  });
  return labelled(id, input, options);
}

/**
 * A box for a few lines of text, with a visible count of the characters left; the count is
 * announced once the person pauses, not at every key.
 */
export function textArea(options: FieldOptions & { maxlength: number }): Field<HTMLTextAreaElement> {
  const id = `f${++fieldCount}`;
  const area = h("textarea", { id, name: options.name, rows: "4", required: !options.optional });
  const count = h("p", { id: `${id}-count`, class: "hint count", "aria-hidden": "true" });
  const spoken = h("p", { class: "visually-hidden", "aria-live": "polite" });
  const left = () => {
    const n = options.maxlength - area.value.length;
    return `${n} character${n === 1 ? "" : "s"} left`;
  };
  count.textContent = left();
  let pause: ReturnType<typeof setTimeout> | undefined;
  area.addEventListener("input", () => {
    count.textContent = left();
    clearTimeout(pause);
    pause = setTimeout(() => (spoken.textContent = left()), 1000);
  });
  return labelled(id, area, options, [count, spoken]);
}

/** A drop-down list: `choices` are [value, what it says]. */
export function choice(options: { label: string; name: string; choices: Array<[string, string]>; value?: string }): {
  element: HTMLElement;
  select: HTMLSelectElement;
} {
  const id = `f${++fieldCount}`;
  const select = h(
    "select",
    { id, name: options.name },
    ...options.choices.map(([value, label]) =>
      h("option", { value, selected: value === (options.value ?? "") }, label),
    ),
  );
  return { element: h("div", { class: "field" }, h("label", { for: id }, options.label), select), select };
}

/**
 * A notice at the top of a form: a refusal that belongs to no one field, announced at once, with
 * what the person can do about it (a button) after its words when there is something.
 */
export function alertBox(): { element: HTMLElement; show(message: string | null, ...actions: Node[]): void } {
  const element = h("div", { class: "alert", role: "alert", hidden: true });
  return {
    element,
    show(message, ...actions) {
      element.replaceChildren(...(message === null ? [] : [h("p", {}, message), ...actions]));
      element.hidden = message === null;
    },
  };
}

export function button(
  label: string | Array<Node | string>,
  options: {
    kind?: "primary" | "secondary" | "link" | "danger";
    type?: "submit" | "button";
    onclick?: () => void;
  } = {},
): HTMLButtonElement {
  return h(
    "button",
    { type: options.type ?? "button", class: options.kind ?? "primary", onclick: options.onclick },
    ...(typeof label === "string" ? [label] : label),
  );
}

export function linkButton(
  label: string,
  href: string,
  kind: "primary" | "secondary" = "secondary",
): HTMLAnchorElement {
  return h("a", { class: `button ${kind}`, href }, label);
}

/**
 * Runs `work` with the form's submit button showing that something is happening; a second press
 * meanwhile does nothing. The button is not disabled (a disabled button loses focus, and the
 * person's place), but marked busy.
 */
export async function whileBusy(submit: HTMLButtonElement, label: string, work: () => Promise<void>): Promise<void> {
  if (submit.getAttribute("aria-busy") === "true") return;
  const before = [...submit.childNodes];
  submit.setAttribute("aria-busy", "true");
  submit.textContent = label;
  try {
    await work();
  } finally {
    submit.removeAttribute("aria-busy");
    submit.replaceChildren(...before);
  }
}

/** A view that only says something is happening (announced politely). */
export function working(title: string, message: string): void {
  view(title, h("p", { role: "status", class: "working" }, message));
}

/** What a confirmation panel hands the step it confirms. */
export interface Confirming {
  /** The section's notice, for a refusal. */
  alert: ReturnType<typeof alertBox>;
  /** The panel, for what must stand beside it (asking the person to confirm it's them). */
  panel: HTMLElement;
  /** Closes the panel with nothing done, back to the button that opened it, and says so. */
  keep(): void;
}

/**
 * A step that can't be undone, behind a confirmation: a button opens a panel that asks the
 * question and says what goes, with a button to go ahead and one to keep things as they are.
 * Opening clears what was said before and moves focus to the question, so it is read first;
 * closing moves focus back to the button that opened it. Returns the section's notice, the button,
 * the panel and the status line, in that order.
 */
export function confirmPanel(options: {
  /** The question's id, which names the panel. */
  id: string;
  /** The button that opens the panel. */
  open: string;
  /** The question, asked anew at each opening (what it names may have changed meanwhile). */
  question: () => string;
  /** What goes, a line each. */
  lines: string[];
  yes: string;
  no: string;
  /** Said when the panel closes with nothing done (the person kept things, or did not confirm it's them). */
  kept: string;
  /** What the go-ahead button says while the step runs. */
  busy: string;
  go(confirming: Confirming): Promise<void>;
}): HTMLElement[] {
  const alert = alertBox();
  const start = button(options.open, { kind: "secondary" });
  const question = h("h3", { id: options.id, tabindex: "-1" }, options.question());
  const yes = button(options.yes, { kind: "danger" });
  const no = button(options.no, { kind: "link" });
  const panel = h(
    "div",
    { class: "confirm-delete", hidden: true, role: "group", "aria-labelledby": options.id },
    question,
    h("ul", {}, ...options.lines.map((line) => h("li", {}, line))),
    h("div", { class: "actions" }, yes, no),
  );
  const status = h("p", { role: "status", class: "small" });
  start.addEventListener("click", () => {
    alert.show(null);
    status.textContent = "";
    question.textContent = options.question();
    panel.hidden = false;
    start.hidden = true;
    question.focus();
  });
  const keep = () => {
    panel.hidden = true;
    start.hidden = false;
    status.textContent = options.kept;
    start.focus();
  };
  no.addEventListener("click", keep);
  yes.addEventListener("click", () => {
    alert.show(null);
    void whileBusy(yes, options.busy, () => options.go({ alert, panel, keep }));
  });
  return [alert.element, start, panel, status];
}
