/* eslint-disable @typescript-eslint/no-require-imports -- nodemailer loads with the first mail, not at every group's cold start */
import type { Transporter } from "nodemailer";
import type { Config } from "../core/settings";
import type { Mailer, MailMessage } from "../core/ports";
import type { Random } from "../random";

type Smtp = NonNullable<Config["smtp"]>;

export interface PacingOptions {
  /** No answer about a code comes sooner than this, mail or no mail. */
  floorMs?: number;
  /** How many recent send durations `imitateSend` draws from. */
  remember?: number;
  /** How long after a failed send (with no success since) `imitateSend` fails too. */
  failureEchoMs?: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)));

/**
 * Gives `send` a twin that sends nothing yet cannot be told apart by time or outcome: it waits
 * a duration drawn from this instance's recent real sends (never less than the floor, which
 * real sends are padded to as well) and, while real sends are failing, fails like them.
 */
export function pacedMailer(
  send: (message: MailMessage) => Promise<void>,
  random: Pick<Random, "int">,
  options: PacingOptions = {},
  check: () => Promise<void> = async () => {},
): Mailer {
  const { floorMs = 250, remember = 64, failureEchoMs = 30_000 } = options;
  const took = { ok: [] as number[], failed: [] as number[] };
  let lastFailure = -Infinity;
  const note = (list: number[], ms: number) => {
    list.push(ms);
    if (list.length > remember) list.shift();
  };
  return {
    check,
    async send(message) {
      const started = performance.now();
      try {
        await send(message);
      } catch (err) {
        note(took.failed, performance.now() - started);
        lastFailure = performance.now();
        await sleep(floorMs - (performance.now() - started));
        throw err;
      }
      note(took.ok, performance.now() - started);
      lastFailure = -Infinity;
      await sleep(floorMs - (performance.now() - started));
    },
    async imitateSend() {
      const failing = performance.now() - lastFailure < failureEchoMs;
      const pool = failing ? took.failed : took.ok;
      const drawn = pool.length === 0 ? floorMs : (pool[random.int(0, pool.length)] ?? floorMs);
      await sleep(Math.max(drawn, floorMs));
      if (failing) throw new Error("sends are failing on this instance");
    },
  };
}

/** Mail over SMTP; the transport is made once per instance, with the first mail. */
export function smtpMailer(smtp: Smtp, random: Pick<Random, "int">, options: PacingOptions = {}): Mailer {
  let transport: Transporter | undefined;
  const connect = (): Transporter => {
    const nodemailer = require("nodemailer") as typeof import("nodemailer");
    transport ??= nodemailer.createTransport({
      host: smtp.host,
      port: smtp.port,
      secure: smtp.secure,
      auth: smtp.user === "" ? undefined : { user: smtp.user, pass: smtp.password },
      // Credentials never cross the wire in the clear.
      requireTLS: !smtp.secure && smtp.user !== "",
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 20_000,
      // Message content is ours alone: nothing in it may make the transport fetch a file or URL.
      disableFileAccess: true,
      disableUrlAccess: true,
      logger: false,
    });
    return transport;
  };
  return pacedMailer(
    async (message) => {
      await connect().sendMail({
        from: smtp.from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        html: message.html,
      });
    },
    random,
    options,
    async () => {
      await connect().verify();
    },
  );
}
