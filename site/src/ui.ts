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

export function paragraph(...children: Child[]): HTMLParagraphElement {
  return h("p", {}, ...children);
}

export interface Field {
  element: HTMLElement;
  input: HTMLInputElement;
  /** Shows a refusal under the field (announced, and tied to it), or clears it. */
  setError(message: string | null): void;
}

let fieldCount = 0;

export function field(options: {
  label: string;
  name: string;
  type?: string;
  autocomplete?: string;
  inputmode?: string;
  hint?: string;
  value?: string;
}): Field {
  const id = `f${++fieldCount}`;
  const hintId = options.hint === undefined ? undefined : `${id}-hint`;
  const errorId = `${id}-error`;
  const input = h("input", {
    id,
    name: options.name,
    type: options.type ?? "text",
    autocomplete: options.autocomplete,
    inputmode: options.inputmode,
    value: options.value,
    required: true,
    "aria-describedby": hintId,
    spellcheck: "false",
    autocapitalize: "off",
  });
  const error = h("p", { id: errorId, class: "error", hidden: true });
  const element = h(
    "div",
    { class: "field" },
    h("label", { for: id }, options.label),
    options.hint === undefined ? null : h("p", { id: hintId, class: "hint" }, options.hint),
    input,
    error,
  );
  return {
    element,
    input,
    setError(message) {
      if (message === null) {
        error.hidden = true;
        error.textContent = "";
        input.removeAttribute("aria-invalid");
        input.setAttribute("aria-describedby", hintId ?? "");
        if (hintId === undefined) input.removeAttribute("aria-describedby");
        return;
      }
      error.textContent = message;
      error.hidden = false;
      input.setAttribute("aria-invalid", "true");
      input.setAttribute("aria-describedby", [hintId, errorId].filter(Boolean).join(" "));
      input.focus();
    },
  };
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
  label: string,
  options: { kind?: "primary" | "secondary" | "link"; type?: "submit" | "button"; onclick?: () => void } = {},
): HTMLButtonElement {
  return h(
    "button",
    { type: options.type ?? "button", class: options.kind ?? "primary", onclick: options.onclick },
    label,
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
  const before = submit.textContent;
  submit.setAttribute("aria-busy", "true");
  submit.textContent = label;
  try {
    await work();
  } finally {
    submit.removeAttribute("aria-busy");
    submit.textContent = before;
  }
}

/** A view that only says something is happening (announced politely). */
export function working(title: string, message: string): void {
  view(title, h("p", { role: "status", class: "working" }, message));
}
