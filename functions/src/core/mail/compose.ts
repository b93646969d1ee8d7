import type { MailMessage } from "../ports";
import { escapeHtml } from "../text";

/**
 * How the service's notices are written: paragraphs of plain text, each also as escaped HTML, so
 * nothing a person or a provider typed is ever markup.
 */
export interface Paragraph {
  text: string;
  html: string;
}

export function composeMail(to: string, subject: string, paragraphs: Paragraph[]): MailMessage {
  const text = `${paragraphs.map((p) => p.text).join("\n\n")}\n`;
  const html = [
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>`,
    `<body style="font-family:sans-serif;line-height:1.5">`,
    ...paragraphs.map((p) => `<p>${p.html}</p>`),
    `</body></html>`,
  ].join("\n");
  return { to, subject, text, html };
}

export const plain = (text: string): Paragraph => ({ text, html: escapeHtml(text) });

export const link = (label: string, url: string): Paragraph => ({
  text: `${label}: ${url}`,
  html: `<a href="${escapeHtml(url)}">${escapeHtml(label)}</a>`,
});
