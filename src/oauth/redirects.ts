// Which redirect URIs a client may register, and when a requested one matches a registered one:
// exactly, but for the port of a loopback http URI (RFC 8252 §7.3, native apps pick a free port).

import { getDomain } from "tldts";

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);
/** Schemes a browser would run or read rather than hand to an app. */
const REFUSED_SCHEMES = new Set([
  "javascript:",
  "data:",
  "file:",
  "vbscript:",
  "blob:",
  "about:",
  "ftp:",
  "ws:",
  "wss:",
]);
/**
 * App schemes allowed without a dot, because widely used MCP clients register them: Cursor's
 * `cursor://anysphere.cursor-mcp/oauth/callback`. Every other app scheme must be a reverse domain name.
 */
export const KNOWN_APP_SCHEMES: ReadonlySet<string> = new Set(["cursor"]);
export const MAX_REDIRECT_URI_LENGTH = 2000;

/** Rounds of percent-decoding past which a redirect URI is refused rather than decoded further. */
const MAX_DECODE_ROUNDS = 16;

/**
 * Whether a non-web redirect URI would end at a website: a browser's scheme, or a web address inside;
 * "unknown" when it is still percent-encoded after `MAX_DECODE_ROUNDS` rounds.
 */
function handedToBrowser(url: URL): boolean | "unknown" {
  if (url.protocol.includes("http")) return true;
  // The web address may be the remainder itself (firefox:https://…) or a parameter, percent-encoded any
  // number of times (a byte at a time, so that a malformed sequence elsewhere hides nothing). Tab, CR
  // and LF go first, each round: a browser's URL parser drops them, so h%0Attps: opens https:.
  let rest = url.href.slice(url.protocol.length);
  const rounds = Math.min(rest.length, MAX_DECODE_ROUNDS);
  for (let round = 0; round <= rounds; round++) {
    rest = rest.replace(/[\t\r\n]/g, "");
    if (/https?:/i.test(rest)) return true;
    const decoded = rest.replace(/%([0-9a-f]{2})/gi, (_, hex: string) =>
      String.fromCharCode(parseInt(hex, 16)),
    );
    if (decoded === rest) return false;
    rest = decoded;
  }
  return /https?:/i.test(rest.replace(/[\t\r\n]/g, "")) ? true : "unknown";
}

/**
 * An app scheme as RFC 8252 §7.1 asks native apps to name theirs: a reverse domain name the app's
 * owner controls (com.example.app), or one of the few `KNOWN_APP_SCHEMES`. Browsers' own schemes
 * (googlechrome, puffins, ucbrowser, ...) have no dot, so they are refused by the rule, not by a list.
 */
export function reverseDomainScheme(scheme: string): boolean {
  const lower = scheme.toLowerCase();
  const labels = lower.split(".");
  return KNOWN_APP_SCHEMES.has(lower) || (labels.length >= 2 && labels.every((label) => label !== ""));
}

/**
 * The domain a reverse-domain app scheme names (com.example.app: example.com), or undefined for one of
 * the `KNOWN_APP_SCHEMES`. It is the app's own claim: any app on the device may register any scheme.
 */
export function appDomainOf(scheme: string): string | undefined {
  const labels = scheme.toLowerCase().split(".");
  if (labels.length < 2) return undefined;
  const host = labels.reverse().join(".");
  return getDomain(host, { allowPrivateDomains: true }) ?? host;
}

/** Why a redirect URI cannot be registered, or undefined when it can. */
export function redirectUriProblem(text: string): string | undefined {
  if (text.length > MAX_REDIRECT_URI_LENGTH) return `longer than ${MAX_REDIRECT_URI_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "not an absolute URI";
  }
  if (url.hash || text.includes("#")) return "has a fragment";
  if (url.username || url.password) return "carries a user name or password";
  if (REFUSED_SCHEMES.has(url.protocol)) return `the ${url.protocol} scheme is not allowed`;
  if (url.protocol === "http:" && !LOOPBACK_HOSTS.has(url.hostname)) {
    return "http is allowed only on loopback (127.0.0.1, [::1], localhost); use https";
  }
  const handed = url.protocol !== "http:" && url.protocol !== "https:" && handedToBrowser(url);
  if (handed === "unknown") return `percent-encoded more than ${MAX_DECODE_ROUNDS} times over`;
  if (handed) {
    return `handed to a web browser (the ${url.protocol} scheme opens a website, not an app); register the https URI itself`;
  }
  if (
    url.protocol !== "http:" &&
    url.protocol !== "https:" &&
    !reverseDomainScheme(url.protocol.slice(0, -1))
  ) {
    return `not https, loopback http or an app scheme named by a reverse domain (RFC 8252 §7.1, like com.example.app:/callback): ${url.protocol} has no dot`;
  }
  return undefined;
}

/** The requested URI is one of the registered ones: same string, or a loopback http URI differing in port only. */
export function matchRedirectUri(requested: string, registered: readonly string[]): boolean {
  if (registered.includes(requested)) return true;
  let url: URL;
  try {
    url = new URL(requested);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" || !LOOPBACK_HOSTS.has(url.hostname)) return false;
  const portless = withoutPort(url);
  return registered.some((candidate) => {
    try {
      const other = new URL(candidate);
      return other.protocol === "http:" && withoutPort(other) === portless;
    } catch {
      return false;
    }
  });
}

function withoutPort(url: URL): string {
  const copy = new URL(url.href);
  copy.port = "";
  return copy.href;
}

/** What the consent page names as where the person is sent back: the host, or the app's scheme. */
export function returnPlaceOf(redirectUri: string): string {
  const url = new URL(redirectUri);
  if (url.protocol === "http:" || url.protocol === "https:") return url.host;
  return url.host ? `${url.protocol}//${url.host}` : url.protocol;
}

/** The CSP form-action source that lets the consent form's answer redirect to this URI. */
export function formActionSourceOf(redirectUri: string): string {
  const url = new URL(redirectUri);
  if (url.protocol === "http:" || url.protocol === "https:") {
    // Any port for loopback, as the match allows.
    return LOOPBACK_HOSTS.has(url.hostname) ? `${url.protocol}//${url.hostname}:*` : url.origin;
  }
  return url.protocol;
}
