import { isIP } from "node:net";
import type { Request } from "express";

/**
 * The host a browser addressed: Firebase Hosting (and its emulator) hands a rewritten request to
 * the function with the site's host in `X-Forwarded-Host`; called directly, it is `Host`. Only
 * ever compared against the configured hosts, so a forged value can pick among those and no other.
 */
export function requestHost(req: Request): string | undefined {
  const forwarded = req.headers["x-forwarded-host"];
  const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(",")[0]?.trim();
  return first !== undefined && first !== "" ? first : req.headers.host;
}

/**
 * The network a request came from, for budgets: the first `X-Forwarded-For` hop (Firebase
 * Hosting puts the client's address there before the request reaches the function), else the
 * socket's peer. An IPv6 address counts by its /64, the block one subscriber is usually given,
 * so walking through a block's addresses buys nothing.
 */
export function clientNetwork(req: Request): string {
  const forwarded = req.headers["x-forwarded-for"];
  const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(",")[0]?.trim() ?? "";
  const address = isIP(first) !== 0 ? first : (req.socket.remoteAddress ?? "unknown");
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1] as string;
  return isIP(address) === 6 ? `${ipv6Groups(address).slice(0, 4).join(":")}::/64` : address;
}

/** The eight groups of an IPv6 address, `::` expanded, zone dropped. */
function ipv6Groups(address: string): string[] {
  const [head = "", tail] = address.split("%")[0]!.toLowerCase().split("::");
  const left = head === "" ? [] : head.split(":");
  const right = tail === undefined || tail === "" ? [] : tail.split(":");
  const missing = tail === undefined ? 0 : 8 - left.length - right.length;
  return [...left, ...Array<string>(missing).fill("0"), ...right].map((g) => g.replace(/^0+(?=.)/, ""));
}
