/** The dev inbox (maildev's web API): what was delivered, by Message-ID and by recipient. */
import { until } from "./measure.ts";

export interface Mail {
  messageId: string;
  to: string[];
  text: string;
}

interface MaildevMail {
  text?: string;
  to?: Array<{ address: string }>;
  headers?: Record<string, string>;
}

export class Inbox {
  private readonly url: string;

  constructor(url: string) {
    this.url = url;
  }

  async clear(): Promise<void> {
    await fetch(`${this.url}/email/all`, { method: "DELETE", signal: AbortSignal.timeout(10_000) });
  }

  async mails(): Promise<Mail[]> {
    const res = await fetch(`${this.url}/email`, { signal: AbortSignal.timeout(10_000) });
    const list = (await res.json()) as MaildevMail[];
    return list.map((m) => ({
      messageId: m.headers?.["message-id"] ?? "",
      to: (m.to ?? []).map((t) => t.address.toLowerCase()),
      text: m.text ?? "",
    }));
  }

  /** Mails delivered to `address`. */
  async to(address: string): Promise<Mail[]> {
    return (await this.mails()).filter((m) => m.to.includes(address));
  }

  /** The code in the first mail to `address`, waiting up to `ms` for it. */
  async codeFor(address: string, ms: number): Promise<string> {
    let code: string | undefined;
    await until(async () => {
      const mail = (await this.to(address))[0];
      code = mail === undefined ? undefined : codeIn(mail);
      return code !== undefined;
    }, ms);
    if (code === undefined) throw new Error(`no code reached ${address} within ${ms / 1000} s`);
    return code;
  }

  /**
   * The code mailed to each of `addresses`, waiting up to `ms` for them all, and how many mails
   * came to them in all (one each, unless a code went twice). An address whose mail did not come
   * is left out. `lead`: only mails whose text starts so (a sign-in code's, say, where the address
   * was mailed a request-access code before).
   */
  async codesFor(addresses: string[], ms: number, lead = ""): Promise<{ codes: Map<string, string>; mails: number }> {
    const wanted = new Set(addresses);
    let codes = new Map<string, string>();
    let mails = 0;
    await until(async () => {
      const delivered = (await this.mails()).filter(
        (m) => m.text.startsWith(lead) && m.to.some((to) => wanted.has(to)),
      );
      codes = new Map();
      for (const m of delivered) {
        const code = codeIn(m);
        for (const to of m.to) if (wanted.has(to) && code !== undefined && !codes.has(to)) codes.set(to, code);
      }
      mails = delivered.length;
      return codes.size === wanted.size;
    }, ms);
    return { codes, mails };
  }

  /** Waits up to `ms` until at least `count` mails are in; returns them. */
  async atLeast(count: number, ms: number): Promise<Mail[]> {
    let mails: Mail[] = [];
    await until(async () => (mails = await this.mails()).length >= count, ms);
    return mails;
  }
}

const codeIn = (mail: Mail): string | undefined => /: ([0-9]{6})\n/.exec(mail.text)?.[1];

/** The Message-IDs that came more than once, each with how many times. */
export function duplicates(mails: Mail[]): string[] {
  const seen = new Map<string, number>();
  for (const m of mails) seen.set(m.messageId, (seen.get(m.messageId) ?? 0) + 1);
  return [...seen].filter(([, n]) => n > 1).map(([id, n]) => `${id} ×${n}`);
}
