/**
 * The doctor's look at one client's back-channel logout (core/oidc/backchannel): how its latest
 * logout tokens have gone, a pure decision its unit test tries in every case. A token given up
 * (a day of tries spent) in the last day, or one still failing, is a warning that says which, the
 * last failure's kind, and when the client last took one: a client whose address keeps failing
 * keeps people signed in there after they signed out here.
 */
import { DAY } from "../../clock";
import type { OutboxState } from "../../core/model/outbox";

/** How many of a client's latest logout tokens the doctor reads. */
export const LOGOUTS_READ = 50;

export interface LogoutTry {
  state: OutboxState;
  attempts: number;
  createdAt: Date;
  sentAt: Date | null;
  lastError: string | null;
}

export function backchannelHealth(
  clientId: string,
  latest: readonly LogoutTry[],
  now: Date,
): { ok: boolean; detail: string } {
  const recent = latest.filter((t) => now.getTime() - t.createdAt.getTime() < DAY);
  const givenUp = recent.filter((t) => t.state === "failed");
  const failing = latest.filter((t) => t.state === "pending" && t.attempts > 0);
  const delivered = latest
    .filter((t) => t.state === "sent" && t.sentAt !== null)
    .map((t) => (t.sentAt as Date).getTime());
  const last = delivered.length === 0 ? "never" : new Date(Math.max(...delivered)).toISOString();
  const lastError = [...givenUp, ...failing].find((t) => t.lastError !== null)?.lastError ?? null;
  const parts: string[] = [];
  if (givenUp.length > 0) parts.push(`${givenUp.length} logout tokens given up in the last day`);
  if (failing.length > 0) parts.push(`${failing.length} failing and tried again`);
  if (parts.length === 0)
    return {
      ok: true,
      detail: latest.length === 0 ? "no logout token sent yet" : `last took a logout token ${last}`,
    };
  return {
    ok: false,
    detail:
      `${parts.join(", ")} (last failure: ${lastError ?? "unknown"}); last took one ${last}: ` +
      `is its back-channel logout address right, and is it up? (\`clients show ${clientId}\`)`,
  };
}
