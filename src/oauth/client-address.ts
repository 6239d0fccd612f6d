// Who is asking, as a rate limit counts it: the socket's peer address, unless that peer is one of the
// operator's trusted proxies (--trusted-proxies), in which case the right-most X-Forwarded-For entry
// that is not itself a trusted proxy. Entries left of it are the client's own claims and never count.
// Every spelling of one address counts as one; IPv6 counts per /64, the block one subscriber is given.
import type { IncomingMessage } from "node:http";
import { BlockList, isIP } from "node:net";
import ipaddr from "ipaddr.js";
import { isAddressOrRange } from "../config/kinds.js";

/** The trusted proxies as one BlockList; undefined when none are named. */
export function trustedProxies(entries: readonly string[] | undefined): BlockList | undefined {
  if (!entries || entries.length === 0) return undefined;
  const list = new BlockList();
  for (const text of entries) {
    if (!isAddressOrRange(text)) throw new RangeError(`not an address or CIDR range: ${text.slice(0, 60)}`);
    const [address = "", bits] = text.split("/");
    const family = isIP(address) === 4 ? "ipv4" : "ipv6";
    if (bits === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(bits), family);
  }
  return list;
}

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * An address in any spelling (upper case, zero-padded or uncompressed groups, in brackets with a port),
 * IPv4 written as IPv6 (::ffff:a.b.c.d, 0:0:0:0:0:ffff:...) read as the IPv4 address; undefined if not
 * one. net.isIP gates it: an IPv4 address with leading zeros (octal to some parsers) is not one.
 */
function parseAddress(text: string): Address | undefined {
  const bare = text.trim().replace(/^\[(.*)\](?::\d+)?$/, "$1");
  if (!isIP(bare)) return undefined;
  try {
    return ipaddr.process(bare);
  } catch {
    return undefined;
  }
}

function isTrusted(list: BlockList, address: Address): boolean {
  return list.check(address.toString(), address.kind() === "ipv4" ? "ipv4" : "ipv6");
}

/** The bucket an address counts under: an IPv4 address itself, an IPv6 address its /64 (one subscriber's line). */
function bucketOf(address: Address): string {
  if (address.kind() === "ipv4") return address.toString();
  const bytes = address.toByteArray().slice(0, 8);
  return `${ipaddr.fromByteArray([...bytes, ...Array(8).fill(0)]).toString()}/64`;
}

/** The address a request is counted under. */
export function clientAddress(req: IncomingMessage, trusted: BlockList | undefined): string {
  const peer = parseAddress(req.socket.remoteAddress ?? "");
  if (peer === undefined) return "unknown";
  if (!trusted || !isTrusted(trusted, peer)) return bucketOf(peer);
  const header = req.headers["x-forwarded-for"];
  const hops = (Array.isArray(header) ? header.join(",") : (header ?? "")).split(",").reverse();
  let address = peer;
  for (const hop of hops.slice(0, 32)) {
    const hopAddress = parseAddress(hop);
    // A malformed entry was written by the hop before it, who is then the client.
    if (hopAddress === undefined) return bucketOf(address);
    address = hopAddress;
    if (!isTrusted(trusted, hopAddress)) return bucketOf(hopAddress);
  }
  return bucketOf(address);
}
