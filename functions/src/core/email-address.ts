import { domainToASCII } from "node:url";

/**
 * The one canonical form of an address, used for lookups, keys, codes and rate limits:
 * trimmed, local part lowercased, domain lowercased and converted to IDNA ASCII.
 * Returns null for anything that is not a plain addr-spec: display names, lists, quoted local
 * parts, comments, whitespace or control characters inside, IP-literal domains.
 */
const ATOM = "[a-z0-9!#$%&'*+/=?^_`{|}~-]+";
const LOCAL_PART = new RegExp(`^${ATOM}(\\.${ATOM})*$`);
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export function canonicalEmail(raw: unknown): string | null {
  if (typeof raw !== "string") return null;
  const trimmed = raw.trim();
  if (trimmed.length === 0 || trimmed.length > 254) return null;
  // Anything a mail header could be split on, before looking further.
  if (/[\u0000-\u001f\u007f\s]/.test(trimmed)) return null;
  const at = trimmed.lastIndexOf("@");
  if (at <= 0 || at !== trimmed.indexOf("@")) return null;
  const local = trimmed.slice(0, at).toLowerCase();
  const domainInput = trimmed.slice(at + 1).toLowerCase();
  if (local.length > 64 || !LOCAL_PART.test(local)) return null;
  if (domainInput.endsWith(".") || domainInput.startsWith("[")) return null;
  const domain = domainToASCII(domainInput);
  if (domain === "" || domain.length > 253) return null;
  const labels = domain.split(".");
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l))) return null;
  if (/^[0-9]+$/.test(labels[labels.length - 1] ?? "")) return null;
  return `${local}@${domain}`;
}
