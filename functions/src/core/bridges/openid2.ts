import { AppError } from "../errors";
import type { Fetch } from "../ports";

/**
 * The relying-party half of OpenID 2.0 (https://openid.net/specs/openid-authentication-2_0.html),
 * as far as the gaming bridge needs it: send the browser with `checkid_setup`, then accept an
 * assertion only after the provider itself confirms it (direct verification, §11.4.2), and only
 * for an identifier under the provider's own `id/` path.
 */
export const OPENID_NS = "http://specs.openid.net/auth/2.0";
const IDENTIFIER_SELECT = `${OPENID_NS}/identifier_select`;

/** The fields a genuine assertion signs: without them signed, the provider vouches for nothing that matters. */
const MUST_SIGN = ["op_endpoint", "claimed_id", "identity", "return_to", "response_nonce", "assoc_handle"];

/** Where the browser goes to sign in at the provider. */
export function checkIdSetupUrl(endpoint: string, returnTo: string, realm: string): string {
  const url = new URL(endpoint);
  url.searchParams.set("openid.ns", OPENID_NS);
  url.searchParams.set("openid.mode", "checkid_setup");
  url.searchParams.set("openid.return_to", returnTo);
  url.searchParams.set("openid.realm", realm);
  url.searchParams.set("openid.identity", IDENTIFIER_SELECT);
  url.searchParams.set("openid.claimed_id", IDENTIFIER_SELECT);
  return url.toString();
}

/** `openid.*` fields of the callback's query; anything repeated or not a string is no assertion. */
export function openIdFields(query: Record<string, unknown>): Map<string, string> {
  const fields = new Map<string, string>();
  for (const [key, value] of Object.entries(query)) {
    if (!key.startsWith("openid.")) continue;
    if (typeof value !== "string" || value.length > 4096) throw new AppError("bridge_not_confirmed");
    fields.set(key, value);
  }
  return fields;
}

/** `key:value` lines (§4.1.1), as check_authentication answers. */
function parseKeyValue(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split("\n")) {
    const colon = line.indexOf(":");
    if (colon > 0) out.set(line.slice(0, colon), line.slice(colon + 1).trim());
  }
  return out;
}

export interface VerifyOptions {
  endpoint: string;
  /** The return_to this sign-in was started with: the assertion must name exactly it. */
  returnTo: string;
  timeoutMs: number;
  fetch: Fetch;
}

/**
 * Returns the stable account number the provider vouches for, or refuses:
 * `bridge_not_confirmed` (401) when the provider did not confirm the sign-in,
 * `bridge_no_account_id` (502) when it confirmed one without an account number,
 * and rejects with the request's own error when the provider could not be asked (no answer in
 * time, an error status): the caller's to report as the provider failing.
 */
export async function verifyAssertion(fields: Map<string, string>, options: VerifyOptions): Promise<string> {
  const get = (name: string) => fields.get(`openid.${name}`);
  if (get("mode") !== "id_res" || get("ns") !== OPENID_NS) throw new AppError("bridge_not_confirmed");
  if (get("op_endpoint") !== options.endpoint || get("return_to") !== options.returnTo)
    throw new AppError("bridge_not_confirmed");
  const signed = new Set((get("signed") ?? "").split(","));
  if (!MUST_SIGN.every((name) => signed.has(name)) || !get("sig")) throw new AppError("bridge_not_confirmed");

  const body = new URLSearchParams([...fields]);
  body.set("openid.mode", "check_authentication");
  const res = await options.fetch(options.endpoint, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body,
    redirect: "error",
    signal: AbortSignal.timeout(options.timeoutMs),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`check_authentication answered ${res.status}`);
  const answer = parseKeyValue(text.slice(0, 4096));
  if (answer.get("is_valid") !== "true") throw new AppError("bridge_not_confirmed");

  // Only now is the identifier the provider's word: it must be one of its own account URLs.
  const prefix = new URL("id/", options.endpoint).toString();
  const claimed = get("claimed_id") ?? "";
  const account = claimed.startsWith(prefix) ? claimed.slice(prefix.length) : "";
  if (!/^[0-9]{1,20}$/.test(account) || get("identity") !== claimed) throw new AppError("bridge_no_account_id");
  return account;
}
