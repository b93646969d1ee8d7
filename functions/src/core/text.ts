/**
 * Text a person typed, or a provider posted unsigned, kept for others to read (a name, a note to
 * a reviewer): plain text only. Control, format and line-separator characters become spaces,
 * runs of white space one space, and the ends are trimmed; pages show it as text, never as HTML.
 */
export function cleanText(value: string): string {
  return value
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, " ")
    .replace(/\s+/gu, " ")
    .trim();
}

/** `text`'s length in characters (code points), as a person counts them. */
export function characters(text: string): number {
  return [...text].length;
}

/** The first `max` characters (code points) of `text`: never half a surrogate pair. */
export function truncate(text: string, max: number): string {
  return [...text].slice(0, max).join("");
}

const HTML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** `text` as HTML text or an attribute's value: what anyone typed is shown, never run or parsed. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] as string);
}
