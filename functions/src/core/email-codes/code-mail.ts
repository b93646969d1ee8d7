import type { MailMessage } from "../ports";
import { CODE_LIFETIME_MS, isAddressPurpose, type Purpose } from "./rules";

const MINUTES = CODE_LIFETIME_MS / 60_000;

/** `host`: the identity host's name, where the person asked and where the code goes. */
const WORDING: Record<
  "signin" | "request-access" | "address",
  (host: string) => { subject: string; lead: string; use: string; ignore: string }
> = {
  signin: (host) => ({
    subject: "Your sign-in code",
    lead: "Your sign-in code is",
    use: `Enter it on the sign-in page at ${host}, where you asked to sign in. It works once, for ${MINUTES} minutes.`,
    ignore: `If you did not ask to sign in, you can ignore this email: nobody can sign in without the code. Do not share the code with anyone, and enter it nowhere but ${host}.`,
  }),
  "request-access": (host) => ({
    subject: "Confirm your email address",
    lead: "Your code to confirm this address for your access request is",
    use: `Enter it on the request access page at ${host}, where you asked for access. It works for ${MINUTES} minutes.`,
    ignore: "If you did not ask for access, you can ignore this email: no request is made without the code.",
  }),
  address: (host) => ({
    subject: "Confirm your new email address",
    lead: "Your code to add this address to your account is",
    use: `Enter it on your account page at ${host}, where you asked to add this address. It works once, for ${MINUTES} minutes.`,
    ignore:
      "If you did not ask to add this address to an account, you can ignore this email: it is not added without the code.",
  }),
};

/**
 * The mail that carries a code. The code appears in the two bodies only: never in the subject
 * or another header, never in a link (links end up in logs, proxies and browser histories).
 * The page is named by its host, not linked: a mail that links to where a code goes is what
 * phishing mail imitates, and a person who types the host knows where they are.
 */
export function codeMail(to: string, code: string, purpose: Purpose, idUrl: string): MailMessage {
  const w = WORDING[isAddressPurpose(purpose) ? "address" : purpose](new URL(idUrl).host);
  const text = `${w.lead}: ${code}\n\n${w.use}\n\n${w.ignore}\n`;
  // Every interpolated string here is ours: six digits and fixed wording, nothing from the request.
  const html = [
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${w.subject}</title></head>`,
    `<body style="font-family:sans-serif;line-height:1.5">`,
    `<p>${w.lead}:</p>`,
    `<p style="font-size:28px;font-weight:bold;letter-spacing:6px;font-family:monospace">${code}</p>`,
    `<p>${w.use}</p>`,
    `<p style="color:#555">${w.ignore}</p>`,
    `</body></html>`,
  ].join("\n");
  return { to, subject: w.subject, text, html };
}

/**
 * The mail that tells an address's owner that sign-in by code was paused for it, after a run of
 * wrong codes. No link, as with the codes: it names the host, and what the person can do.
 */
export function lockNoticeMail(to: string, until: Date, idUrl: string): MailMessage {
  const host = new URL(idUrl).host;
  const when = `${until.toISOString().slice(0, 16).replace("T", " ")} UTC`;
  const subject = "Sign-in by email code paused for your address";
  const paragraphs = [
    `Someone entered many wrong sign-in codes for this address, so sign-in by emailed code is paused for it until ${when}.`,
    `If it was you, wait until then and ask for a new code at ${host}, or sign in another way (a provider, or a passkey if you have one): those are not paused.`,
    "If it was not you, nobody got in: codes only ever come to this mailbox, and none of the guesses was right. You need do nothing. Never share a code you receive.",
  ];
  const text = `${paragraphs.join("\n\n")}\n`;
  const html = [
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${subject}</title></head>`,
    `<body style="font-family:sans-serif;line-height:1.5">`,
    ...paragraphs.map((p) => `<p>${p}</p>`),
    `</body></html>`,
  ].join("\n");
  return { to, subject, text, html };
}
