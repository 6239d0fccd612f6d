// Who is asking, as a rate limit counts it: the socket's peer address, unless that peer is one of the
// operator's trusted proxies (--trusted-proxies), in which case the right-most X-Forwarded-For entry
// that is not itself a trusted proxy. Entries left of it are the client's own claims and never count.
import type { IncomingMessage } from "node:http";
import { BlockList, isIP } from "node:net";
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

/** An address as text, IPv4 written as IPv6 (::ffff:a.b.c.d) turned back into IPv4; undefined if not one. */
function normalAddress(text: string): string | undefined {
  const bare = text.trim().replace(/^\[(.*)\](?::\d+)?$/, "$1");
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  const address = mapped?.[1] ?? bare;
  return isIP(address) ? address.toLowerCase() : undefined;
}

function isTrusted(list: BlockList, address: string): boolean {
  return list.check(address, isIP(address) === 4 ? "ipv4" : "ipv6");
}

/** The address a request is counted under. */
export function clientAddress(req: IncomingMessage, trusted: BlockList | undefined): string {
  const peer = normalAddress(req.socket.remoteAddress ?? "") ?? "unknown";
  if (!trusted || peer === "unknown" || !isTrusted(trusted, peer)) return peer;
  const header = req.headers["x-forwarded-for"];
  const hops = (Array.isArray(header) ? header.join(",") : (header ?? "")).split(",").reverse();
  let address = peer;
  for (const hop of hops.slice(0, 32)) {
    const hopAddress = normalAddress(hop);
    // A malformed entry was written by the hop before it, who is then the client.
    if (hopAddress === undefined) return address;
    address = hopAddress;
    if (!isTrusted(trusted, hopAddress)) return hopAddress;
  }
  return address;
}
