/**
 * The doctor's reading of the secrets the deployment uses: from Secret Manager for a real
 * project (as the deployed functions get them), from functions/.secret.local on the emulators.
 * A value is checked as the functions check it and never leaves this module but into the process
 * environment (where the functions' own config reader finds it).
 */
import { federatedConfig } from "../../config/config";
import { parsePepper } from "../../core/pepper";
import { parseKeyRing } from "../../core/sessions/session-token";
import { keyDue, signingKid, type KeyDue } from "../../core/model/key-age";
import { systemClock } from "../../clock";
import { errorText } from "../../logger";
import * as params from "../../config/params";
import { accessToken, noCredentials } from "../credentials";
import type { Check } from "../probes";
import type { Target } from "../target";

/** What Secret Manager's answer means for the operator. */
export function secretAnswer(
  name: string,
  projectId: string,
  status: number,
  body: { payload?: { data?: string }; error?: { message?: string } },
): { value: string } | { reason: string } {
  if (status === 200 && typeof body.payload?.data === "string")
    return { value: Buffer.from(body.payload.data, "base64").toString("utf8") };
  const said = body.error?.message?.split("\n")[0] ?? `HTTP ${status}`;
  if (status === 404)
    return { reason: `it is not set (npx firebase functions:secrets:set ${name} --project ${projectId})` };
  if (status === 403 || status === 401)
    return {
      reason: `these credentials may not read it (they need roles/secretmanager.secretAccessor on ${projectId}): ${said}`,
    };
  return { reason: `Secret Manager answered ${status}: ${said}` };
}

async function fromSecretManager(projectId: string, name: string, token: string) {
  const url = `https://secretmanager.googleapis.com/v1/projects/${projectId}/secrets/${name}/versions/latest:access`;
  try {
    const res = await fetch(url, {
      headers: { authorization: `Bearer ${token}`, "x-goog-user-project": projectId },
      signal: AbortSignal.timeout(10_000),
    });
    return secretAnswer(name, projectId, res.status, (await res.json().catch(() => ({}))) as never);
  } catch (err) {
    return { reason: `Secret Manager could not be reached: ${errorText(err).split("\n")[0]}` };
  }
}

/** What a readable value amounts to, checked as the functions check it: a summary, or the fault. */
function validate(name: string, value: string): string {
  if (value.trim() === "") throw new Error("it is empty");
  if (name === params.sessionKeys.name) {
    const ring = parseKeyRing(value);
    return `${ring.verifying.size} key(s), signing with ${ring.signing.kid}`;
  }
  if (name === params.codePepper.name) return `${parsePepper(value).length} key(s)`;
  if (name === params.federatedClientSecrets.name) {
    const federated = federatedConfig(params.federatedProviders.value(), value, params.idpApiKey.value());
    return `a secret for each of ${Object.keys(federated?.providers ?? {}).join(", ") || "no idp"}`;
  }
  return "set";
}

/** The key in use of a secret that has one, if it is near its rotation (model/key-age). */
function dueOf(name: string, value: string): KeyDue | null {
  const now = systemClock.now();
  if (name === params.sessionKeys.name) return keyDue("SESSION_KEYS", signingKid(value), now);
  if (name === params.codePepper.name) return keyDue("CODE_PEPPER", parsePepper(value)[0]?.kid ?? null, now);
  return null;
}

/** A warning that a key in use is due for rotation, with the command that rotates it. */
export function rotationCheck(due: KeyDue): Check {
  const command = due.secret === "SESSION_KEYS" ? "keys rotate-session-key" : "keys rotate-code-pepper";
  const when = due.daysLeft > 0 ? `by ${due.dueOn} (${due.daysLeft} day(s) left)` : `since ${due.dueOn}`;
  return {
    name: `${due.secret} rotation`,
    ok: false,
    detail: `${due.kid}, made on ${due.madeOn}, is due for rotation ${when}: ${command}`,
    required: false,
  };
}

/**
 * Each secret the deployment uses, read and checked, after the credentials to read them with (a
 * real project's). Secrets read are put in the environment; `token`: whether there are credentials.
 */
export async function readSecrets(target: Target, names: string[]): Promise<{ checks: Check[]; token: boolean }> {
  let token: string | null = null;
  let why: string | null = null;
  if (!target.emulators) {
    try {
      token = await accessToken();
    } catch (err) {
      why = /default credentials/i.test(errorText(err)) ? noCredentials(target.projectId) : errorText(err);
    }
  }
  const checks: Check[] = [];
  if (why !== null) checks.push({ name: "Google Cloud credentials", ok: false, detail: why, required: true });
  for (const name of names) {
    const found: { value: string } | { reason: string } = target.emulators
      ? process.env[name] === undefined
        ? { reason: "it is not in functions/.secret.local (npm start writes it)" }
        : { value: process.env[name] as string }
      : token === null
        ? { reason: "there are no Google Cloud credentials (above)" }
        : await fromSecretManager(target.projectId, name, token);
    if ("reason" in found) {
      checks.push({ name, ok: false, detail: `cannot read, because ${found.reason}`, required: true });
      continue;
    }
    process.env[name] = found.value;
    try {
      checks.push({ name, ok: true, detail: `read: ${validate(name, found.value)}`, required: true });
      const due = dueOf(name, found.value);
      if (due !== null) checks.push(rotationCheck(due));
    } catch (err) {
      checks.push({ name, ok: false, detail: `read, but not usable: ${errorText(err)}`, required: true });
    }
  }
  return { checks, token: target.emulators || token !== null };
}
