/* eslint-disable @typescript-eslint/no-require-imports -- nodemailer loads with the first mail, not at every group's cold start */
import type { Transporter } from "nodemailer";
import type { Config } from "../core/settings";
import { MailRefused, type Mailer } from "../core/ports";

type Smtp = NonNullable<Config["smtp"]>;

const NETWORK = new Set(["ECONNREFUSED", "ECONNRESET", "EHOSTUNREACH", "ENOTFOUND", "EAI_AGAIN", "EPIPE"]);

/**
 * What a failed send says, in kinds: a 5xx reply refuses the message for good; a 4xx reply, a
 * timeout or a connection that failed may pass on a later attempt.
 */
export function refusalOf(err: unknown): MailRefused {
  const e = (typeof err === "object" && err !== null ? err : {}) as { code?: unknown; responseCode?: unknown };
  const reply = typeof e.responseCode === "number" ? e.responseCode : 0;
  if (reply >= 500) return new MailRefused("rejected", true, { cause: err });
  if (reply >= 400) return new MailRefused("deferred", false, { cause: err });
  if (e.code === "ETIMEDOUT" || e.code === "ESOCKET" || e.code === "ECONNECTION") {
    return new MailRefused(e.code === "ETIMEDOUT" ? "timeout" : "unreachable", false, { cause: err });
  }
  if (typeof e.code === "string" && NETWORK.has(e.code)) return new MailRefused("unreachable", false, { cause: err });
  return new MailRefused("failed", false, { cause: err });
}

/** Mail over SMTP; the transport is made once per instance, with the first mail. */
export function smtpMailer(smtp: Smtp): Mailer {
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
  return {
    async send(message, { messageId }) {
      try {
        await connect().sendMail({
          from: smtp.from,
          to: message.to,
          subject: message.subject,
          text: message.text,
          html: message.html,
          messageId,
        });
      } catch (err) {
        throw refusalOf(err);
      }
    },
    async check() {
      await connect().verify();
    },
  };
}
