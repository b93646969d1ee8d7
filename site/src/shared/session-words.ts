/**
 * A session in words, as the account page and a person's page for administrators both say it:
 * how the person signed in, roughly when it was last used, and the browser it is.
 */
import type { SessionView } from "../../../functions/src/core/sessions/session-view";

/** How a sign-in was made, in words, from its RFC 8176 methods. */
export function howSignedIn(methods: string[]): string {
  if (methods.includes("hwk") || methods.includes("swk")) return "with a passkey";
  if (methods.includes("otp")) return "with a code by email";
  if (methods.includes("fed")) return "through another service";
  if (methods.includes("sms")) return "with a code by text message";
  if (methods.includes("pwd")) return "with a password";
  return "";
}

const RELATIVE = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });

/** "just now", "12 minutes ago", "yesterday": rough on purpose, as the service records it (to ten minutes). */
export function roughly(iso: string, now: number): string {
  const minutes = Math.round((new Date(iso).getTime() - now) / 60_000);
  if (minutes > -10) return "in the last few minutes";
  if (minutes > -60) return RELATIVE.format(minutes, "minute");
  const hours = Math.round(minutes / 60);
  if (hours > -24) return RELATIVE.format(hours, "hour");
  return RELATIVE.format(Math.round(hours / 24), "day");
}

/** "Firefox on Linux", or the one the service could name. */
export function deviceName(session: Pick<SessionView, "browser" | "system">): string {
  const known = (v: string) => v !== "" && v !== "Unknown";
  if (known(session.browser) && known(session.system)) return `${session.browser} on ${session.system}`;
  if (known(session.browser)) return session.browser;
  if (known(session.system)) return `A browser on ${session.system}`;
  return "An unknown browser";
}
