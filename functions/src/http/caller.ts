import { isIP } from "node:net";
import type { Request } from "express";
import type { Caller } from "../core/model/caller";

export type { Caller };

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
 * The client address, taken from the `X-Forwarded-For` entries the trusted proxies appended:
 * each of the `hops` proxies in front of the function appends the address it was reached from,
 * so the client is the entry the outermost appended, `hops` from the right. Everything to its
 * left was written by the client and is never believed. With fewer entries than proxies, the
 * request skipped one (a caller reaching the function's own address), and the leftmost entry,
 * which a trusted proxy wrote, is the caller. `hops` 0 ignores the header: the socket's peer.
 */
export function callerOf(req: Request, hops: number): Caller {
  const socket = req.socket.remoteAddress ?? "unknown";
  const raw = req.headers["x-forwarded-for"];
  const entries = (Array.isArray(raw) ? raw.join(",") : (raw ?? ""))
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  const client = hops === 0 ? socket : (entries[Math.max(0, entries.length - hops)] ?? socket);
  // The entry the platform's front end appended: only a second proxy makes it someone else.
  const nearest = hops >= 2 ? entries.at(-1) : undefined;
  const network = widerNetwork(client);
  const edge = nearest === undefined ? null : widerNetwork(nearest);
  return { client: clientNetwork(client), network, edge: edge === network ? null : edge };
}

/** An address as the budgets key it: IPv4 as is, IPv6 by its /64, anything that is no address as one bucket. */
export function clientNetwork(address: string): string {
  const ip = plainAddress(address);
  if (ip === null) return "unparseable";
  return isIP(ip) === 6 ? `${ipv6Groups(ip).slice(0, 4).join(":")}::/64` : ip;
}

/** The block an address sits in, for shares of the service's budget: IPv4 /24, IPv6 /48. */
export function widerNetwork(address: string): string {
  const ip = plainAddress(address);
  if (ip === null) return "unparseable";
  if (isIP(ip) === 6) return `${ipv6Groups(ip).slice(0, 3).join(":")}::/48`;
  return `${ip.split(".").slice(0, 3).join(".")}.0/24`;
}

/** An IP address without an IPv4-mapped prefix, or null for anything that is not one. */
function plainAddress(address: string): string | null {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  const ip = mapped ? (mapped[1] as string) : address;
  return isIP(ip) === 0 ? null : ip;
}
/** The eight groups of an IPv6 address, `::` expanded, zone dropped. */
function ipv6Groups(address: string): string[] {
  const [head = "", tail] = address.split("%")[0]!.toLowerCase().split("::");
  const left = head === "" ? [] : head.split(":");
  const right = tail === undefined || tail === "" ? [] : tail.split(":");
  const missing = tail === undefined ? 0 : 8 - left.length - right.length;
  return [...left, ...Array<string>(missing).fill("0"), ...right].map((g) => g.replace(/^0+(?=.)/, ""));
}
