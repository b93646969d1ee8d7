/**
 * The deployment's addresses, checked against each other and against the placeholders a fresh
 * checkout carries: a pure decision, so its unit test can try every case.
 */
import type { Check } from "../probes";

export interface Addresses {
  parentDomain: string;
  serviceUrl: string;
  idUrl: string;
  appHosts: string[];
  allowedOrigins: string[];
  mailFrom: string | null;
  idpApiKey: string;
}

/** Names reserved for documentation and tests (RFC 2606, RFC 6761), and loopback. */
export function isPlaceholder(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, "");
  return (
    ["example.com", "example.net", "example.org", "localhost"].includes(h) ||
    /(^|\.)(example|test|invalid|localhost)$/.test(h) ||
    /^\d+\.\d+\.\d+\.\d+$/.test(h) ||
    h.startsWith("[")
  );
}

const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const within = (host: string, domain: string) => host === domain || host.endsWith(`.${domain}`);

function url(value: string): URL | null {
  try {
    return new URL(value);
  } catch {
    return null;
  }
}

/**
 * In production a placeholder or plain http fails; on the emulators both are what the local stack
 * uses, so they pass, said to be local. A check marked `required: false` warns without failing.
 */
export function checkAddresses(a: Addresses, production: boolean): Check[] {
  const checks: Check[] = [];
  const add = (name: string, problem: string | null, fine: string, required = true) =>
    checks.push({ name, ok: problem === null, detail: problem ?? fine, required });
  const local = (host: string) => (isPlaceholder(host) ? " (a local placeholder)" : "");

  const domainOk = a.parentDomain.split(".").every((l) => LABEL.test(l)) && a.parentDomain.includes(".");
  add(
    "PARENT_DOMAIN",
    !domainOk
      ? `"${a.parentDomain}" is not a domain name`
      : production && isPlaceholder(a.parentDomain)
        ? `"${a.parentDomain}" is a placeholder: set PARENT_DOMAIN to the family's own domain`
        : null,
    `${a.parentDomain}${local(a.parentDomain)}`,
  );

  for (const [name, value, under] of [
    ["SERVICE_URL", a.serviceUrl, false],
    ["ID_URL", a.idUrl, true],
  ] as const) {
    const u = url(value);
    const problem =
      u === null
        ? `"${value}" is not an address`
        : production && u.protocol !== "https:"
          ? `${value} must be https`
          : production && isPlaceholder(u.hostname)
            ? `${value} is a placeholder: set ${name}`
            : under && !within(u.hostname, a.parentDomain)
              ? `${u.hostname} is not under PARENT_DOMAIN ${a.parentDomain}: the session cookie it sets would not be accepted`
              : u.pathname !== "/" || u.search !== ""
                ? `${value} must be an origin, with no path`
                : null;
    add(name, problem, `${value}${u === null ? "" : local(u.hostname)}`);
    if (production && problem === null && u !== null && !under && !within(u.hostname, a.parentDomain))
      add(`${name} host`, `${u.hostname} is not under PARENT_DOMAIN ${a.parentDomain}`, "", false);
  }

  const badHosts = a.appHosts.filter((h) => !LABEL.test(h));
  add(
    "APP_HOSTS",
    badHosts.length > 0 ? `not host names: ${badHosts.join(", ")}` : null,
    a.appHosts.map((h) => `${h}.${a.parentDomain}`).join(", "),
  );
  const insecure = a.allowedOrigins.filter((o) => !o.startsWith("https://"));
  add("allowed origins", insecure.length > 0 ? `not https: ${insecure.join(", ")}` : null, a.allowedOrigins.join(" "));

  if (production) {
    add(
      "IDP_API_KEY",
      a.idpApiKey.trim() === "" ? "not set: the identity host's build refuses to run without it" : null,
      "set",
    );
    const from = a.mailFrom === null ? null : (/@([^>\s]+)>?\s*$/.exec(a.mailFrom)?.[1] ?? null);
    if (from !== null && isPlaceholder(from))
      add("MAIL_FROM", `sends as ${from}, a placeholder: receiving servers may refuse the mail`, "", false);
  }
  return checks;
}
