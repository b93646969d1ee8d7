/**
 * The doctor's look at one app's subscription to events: how its deliveries have gone, a pure
 * decision its unit test can try in every case. Failures in a row are a warning; a subscription
 * that has delivered nothing for a day while failing, or that has deliveries given up (the dead
 * letters `hooks deliveries` lists), is work stuck until someone looks: a warning that says so,
 * and what to run. The address's own answer (a HEAD) is the caller's.
 */
import { DAY } from "../../clock";
import type { Hook } from "../../core/model/hook";
import { spanText } from "./erasures";

/** A subscription failing this long with no delivery between is named as failing for a day. */
export const FAILING_LONG_MS = DAY;
/** How many of an app's latest deliveries the doctor reads for the given-up ones. */
export const DELIVERIES_READ = 50;

export interface SubscriptionHealth {
  ok: boolean;
  detail: string;
}

export function subscriptionHealth(
  hook: Pick<Hook, "app" | "failures" | "lastError" | "lastSuccessAt" | "createdAt">,
  givenUp: number,
  now: Date,
): SubscriptionHealth {
  const parts: string[] = [];
  if (hook.failures === 0) parts.push(`last delivered ${hook.lastSuccessAt?.toISOString() ?? "never"}`);
  else {
    parts.push(`${hook.failures} deliveries failed in a row (last: ${hook.lastError})`);
    // Since the last delivery that went through, or since the subscription began if none did.
    const since = hook.lastSuccessAt ?? hook.createdAt;
    const failingFor = now.getTime() - since.getTime();
    if (failingFor >= FAILING_LONG_MS)
      parts.push(
        `nothing delivered for ${spanText(failingFor)} (since ${since.toISOString()}): ` +
          `is the app's address right, and is it up?`,
      );
  }
  if (givenUp > 0)
    parts.push(
      `${givenUp} of its latest ${DELIVERIES_READ} deliveries given up ` +
        `(\`hooks deliveries ${hook.app}\` lists them, \`hooks redeliver\` sends one again)`,
    );
  return { ok: hook.failures === 0 && givenUp === 0, detail: parts.join("; ") };
}
