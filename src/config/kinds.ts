// How a setting's text becomes its value: the kinds the settings table gives each setting.
import { isIP } from "node:net";
import type { Config } from "./types.js";

/** How a setting's text becomes its value; parse gives undefined for a text that breaks `rule`. */
export type Kind<T> = {
  /** What the flag takes, as --help shows it; none for an on/off flag. */
  arg?: string;
  /** Ends the message for a malformed value: `<flag or variable> <rule>, got "<text>"`. */
  rule: string;
  parse(text: string): T | undefined;
  /** The text as a message may quote it (default: as given); a kind whose text can hold a secret hides it. */
  shown?(text: string): string;
} & (
  | { name: "integer"; min: number; max: number }
  | { name: "choice"; words: readonly string[] }
  | { name: "switch" | "list" | "url" | "uuid" | "text" | "redis-url" | "addresses" }
);

/** A whole number within [min, max]. */
export function wholeNumber(arg: string, min: number, max = Number.MAX_SAFE_INTEGER): Kind<number> {
  return {
    name: "integer",
    min,
    max,
    arg,
    rule: `must be a whole number from ${min} to ${max}`,
    parse: (text) =>
      /^\d+$/.test(text) && Number(text) >= min && Number(text) <= max ? Number(text) : undefined,
  };
}

/** One of a few words, in any case. */
export function oneOf<const W extends string>(words: readonly W[], arg = `<${words.join("|")}>`): Kind<W> {
  const listed = words.length === 2 ? words.join(" or ") : `one of ${words.join(", ")}`;
  return {
    name: "choice",
    words,
    arg,
    rule: `must be ${listed}`,
    parse: (text) => words.find((word) => word === text.toLowerCase()),
  };
}

/** An on/off value: 1/true/yes/on or 0/false/no/off; anything else is undefined (malformed). */
export function parseSwitch(value: string): boolean | undefined {
  const word = value.trim().toLowerCase();
  if (["1", "true", "yes", "on"].includes(word)) return true;
  if (["0", "false", "no", "off", ""].includes(word)) return false;
  return undefined;
}

/** A comma-separated list, items trimmed, blanks dropped ("" is the empty list). */
export function list(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return value
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);
}

/** A GUID in its usual 8-4-4-4-12 form, any case (project and workspace ids). */
export const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An http(s) URL, kept as written but for trailing slashes. */
function httpUrl(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  return url.protocol === "http:" || url.protocol === "https:" ? text.replace(/\/+$/, "") : undefined;
}

export const onOff: Kind<boolean> = {
  name: "switch",
  rule: "must be 1/true/yes/on or 0/false/no/off",
  parse: parseSwitch,
};
// A list is never malformed; a text only when a flag gives it empty.
export const commaList: Kind<string[]> = { name: "list", arg: "<list>", rule: "must be a list", parse: list };
export const url: Kind<string> = {
  name: "url",
  arg: "<url>",
  rule: "must be an http(s) URL",
  parse: httpUrl,
};
/** A redis:// or rediss:// URL with a host; its user name and password may ride in it. */
function redisUrl(text: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    return undefined;
  }
  return (parsed.protocol === "redis:" || parsed.protocol === "rediss:") && parsed.hostname
    ? text
    : undefined;
}

/** Everything up to a URL's last "@" (user name and password) replaced, whether or not the URL parses. */
export const withoutCredentials = (text: string) =>
  text.replace(/^([a-z][a-z0-9+.-]*:\/\/)?.*@/is, (_, scheme: string | undefined) => `${scheme ?? ""}***@`);

export const redis: Kind<string> = {
  name: "redis-url",
  arg: "<url>",
  rule: "must be a redis:// or rediss:// URL with a host",
  parse: redisUrl,
  shown: withoutCredentials,
};
/** An IP address, or a CIDR range (address/bits). */
export function isAddressOrRange(text: string): boolean {
  const [address = "", bits, ...rest] = text.split("/");
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
}

/** A comma-separated list of IP addresses and CIDR ranges. */
export const addressList: Kind<string[]> = {
  name: "addresses",
  arg: "<list>",
  rule: "must be a comma-separated list of IP addresses or CIDR ranges",
  parse: (text) => {
    const entries = list(text) ?? [];
    return entries.every(isAddressOrRange) ? entries : undefined;
  },
};
export const uuid: Kind<string> = {
  name: "uuid",
  arg: "<uuid>",
  rule: "must be a uuid",
  parse: (text) => (GUID.test(text) ? text : undefined),
};
export const plainText = (arg: string): Kind<string> => ({
  name: "text",
  arg,
  rule: "must not be empty",
  parse: (value) => value || undefined,
});

/** A default worked out from the rest of the configuration, with the words --help shows for it. */
export class Derived<T> {
  constructor(
    readonly text: string,
    readonly value: (config: Config) => T,
  ) {}
}
