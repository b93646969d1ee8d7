/**
 * A list a person's page edits as a whole (projects, groups, addresses, numbers): each item with
 * a Remove button, and a field to add one. The service takes the whole list back (PATCH replaces
 * arrays); `save` sends it and says whether it was taken.
 */
import { button, field, h, unseen, whileBusy } from "../shared/ui";

export interface ListEditor {
  /** The list's name, for a screen reader ("Projects"), and the noun of one item ("project"). */
  label: string;
  noun: string;
  items: string[];
  empty: string;
  /** How an item reads (`*` as "Every project"). */
  show?: (item: string) => string;
  add: {
    label: string;
    hint?: string;
    type?: string;
    inputmode?: string;
    /** The item as the service takes it, or what to say at the field. */
    check(typed: string): { item: string } | { error: string };
  };
  /** `near`: the list, after which a question about the change goes. */
  save(next: string[], done: string, near: HTMLElement): Promise<boolean>;
}

export function listEditor(options: ListEditor): HTMLElement {
  const show = options.show ?? ((item: string) => item);
  const items = options.items.map((item) => {
    const remove = button(["Remove", unseen(` ${options.noun} ${show(item)}`)], { kind: "link" });
    remove.addEventListener(
      "click",
      () =>
        void whileBusy(remove, "Removing…", async () => {
          await options.save(
            options.items.filter((i) => i !== item),
            `Removed ${options.noun} ${show(item)}.`,
            editor,
          );
        }),
    );
    return h("li", {}, h("span", { class: "item" }, show(item)), remove);
  });
  const adding = field({
    label: options.add.label,
    name: options.noun,
    type: options.add.type,
    hint: options.add.hint,
  });
  if (options.add.inputmode !== undefined) adding.input.setAttribute("inputmode", options.add.inputmode);
  const add = button(["Add", unseen(` ${options.noun}`)], { kind: "secondary", type: "submit" });
  const form = h("form", { novalidate: true, class: "add" }, adding.element, add);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void whileBusy(add, "Adding…", async () => {
      const checked = options.add.check(adding.input.value.trim());
      if ("error" in checked) return adding.setError(checked.error);
      adding.setError(null);
      if (options.items.includes(checked.item)) return adding.setError(`${show(checked.item)} is on the list already.`);
      await options.save([...options.items, checked.item], `Added ${options.noun} ${show(checked.item)}.`, editor);
    });
  });
  const editor = h(
    "div",
    { class: "list-editor" },
    items.length === 0
      ? h("p", { class: "small" }, options.empty)
      : h("ul", { class: "plain items", "aria-label": options.label }, ...items),
    form,
  );
  return editor;
}
