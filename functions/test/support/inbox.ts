/** The dev mail inbox (maildev) over its JSON API: what the service actually sent over SMTP. */
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { allTasksIdle } from "./task-queue";
import { freePort } from "./own-firestore";

export interface Mail {
  id: string;
  subject: string;
  text: string;
  html: string;
  to: Array<{ address: string; name: string }>;
  /** The SMTP envelope: where the mail really went, whatever its headers say. */
  envelope: { to: Array<{ address: string }> };
  headers: Record<string, unknown>;
}

export const stackInbox = () => process.env.STACK_MAIL_URL as string;

export async function allMail(inboxUrl = stackInbox()): Promise<Mail[]> {
  const res = await fetch(`${inboxUrl}/email`);
  if (!res.ok) throw new Error(`inbox: ${res.status}`);
  return (await res.json()) as Mail[];
}

function recipients(mail: Mail): string[] {
  return [...(mail.envelope?.to ?? []), ...(mail.to ?? [])].map((r) => r.address.toLowerCase());
}

/** Mail whose envelope or headers name a recipient containing `fragment`, oldest first. */
export async function mailTo(fragment: string, inboxUrl = stackInbox()): Promise<Mail[]> {
  const needle = fragment.toLowerCase();
  return (await allMail(inboxUrl)).filter((m) => recipients(m).some((r) => r.includes(needle)));
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits until `count` mails to `address` have arrived (the inbox files a mail a moment after
 * SMTP accepts it) and returns them. Ten seconds of waiting at most: a loaded machine slows the
 * drains, and a mail that comes returns at once.
 */
export async function waitForMail(address: string, count = 1, inboxUrl = stackInbox()): Promise<Mail[]> {
  for (let waited = 0; ; waited += 25) {
    const mails = await mailTo(address, inboxUrl);
    if (mails.length >= count) return mails;
    if (waited > 10_000) throw new Error(`expected ${count} mail(s) to ${address}, found ${mails.length}`);
    await pause(25);
  }
}

/**
 * The mail to `address` with `subject`, once it has come: for mail another process sends (the
 * stack's own `mail` task, woken through its task queue), which takes longer than this one's.
 */
export async function waitForSubject(address: string, subject: string, withinMs = 30_000): Promise<Mail> {
  for (let waited = 0; waited < withinMs; waited += 250) {
    const found = (await mailTo(address)).find((m) => m.subject === subject);
    if (found) return found;
    await pause(250);
  }
  throw new Error(`no mail "${subject}" to ${address}`);
}

/** The first mail to `address` after the first `seen` that `wanted` picks, within `seconds`. */
export async function mailAfter(
  address: string,
  seen: number,
  wanted: (m: Mail) => boolean,
  seconds = 30,
): Promise<Mail> {
  for (let waited = 0; waited < seconds * 1000; waited += 250) {
    const found = (await mailTo(address)).slice(seen).find(wanted);
    if (found) return found;
    await pause(250);
  }
  throw new Error(`no such mail to ${address} within ${seconds} s`);
}

/** Whether a mail carries a sign-in code. */
export const hasCode = (m: Mail) => /: ([0-9]{6})\n/.test(m.text);

/** The code in the `nth` mail (1-based) to `address`. */
export async function codeFor(address: string, nth = 1, inboxUrl = stackInbox()): Promise<string> {
  const mail = (await waitForMail(address, nth, inboxUrl))[nth - 1] as Mail;
  return codeIn(mail);
}

export function codeIn(mail: Mail): string {
  const match = /: ([0-9]{6})\n/.exec(mail.text);
  if (!match?.[1]) throw new Error(`no code in mail: ${mail.text}`);
  return match[1];
}

/**
 * How many mails to `fragment` there are once anything in flight has been sent and filed: the
 * drains of this process's outboxes have ended, and the inbox has had a moment to file.
 */
export async function settledCount(fragment: string, inboxUrl = stackInbox()): Promise<number> {
  await allTasksIdle();
  await pause(150);
  return (await mailTo(fragment, inboxUrl)).length;
}

/** A maildev of a test's own, which the test can stop (a real SIGTERM) and start again. */
export interface OwnInbox {
  smtpPort: number;
  url: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** SIGSTOP: connections are taken by the kernel and never answered, as by a hung server. */
  freeze(): void;
  thaw(): void;
}

export async function ownInbox(): Promise<OwnInbox> {
  const [smtpPort, webPort] = [await freePort(), await freePort()];
  const url = `http://127.0.0.1:${webPort}`;
  const bin = join(__dirname, "..", "..", "..", "node_modules", "maildev", "bin", "maildev");
  let child: ChildProcess | null = null;
  return {
    smtpPort,
    url,
    async start() {
      child = spawn(
        process.execPath,
        [bin, "--smtp", String(smtpPort), "--web", String(webPort), "--ip", "127.0.0.1", "--silent"],
        { stdio: "ignore" },
      );
      for (let waited = 0; ; waited += 50) {
        const up = await fetch(`${url}/email`).then(
          (r) => r.ok,
          () => false,
        );
        if (up) return;
        if (waited > 15000) throw new Error("own maildev did not start");
        await pause(50);
      }
    },
    freeze() {
      child?.kill("SIGSTOP");
    },
    thaw() {
      child?.kill("SIGCONT");
    },
    async stop() {
      const running = child;
      child = null;
      if (!running || running.exitCode !== null) return;
      const exited = new Promise((resolve) => running.once("exit", resolve));
      running.kill("SIGTERM");
      await exited;
    },
  };
}
