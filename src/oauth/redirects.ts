// Which redirect URIs a client may register, and when a requested one matches a registered one:
// exactly, but for the port of a loopback http URI (RFC 8252 §7.3, native apps pick a free port).

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
 * Schemes that open the address they carry in a web browser (iOS's and Android's browser schemes, a
 * browser's own "open this URL" scheme, an Android intent or app link that can name a browser): the code
 * would end on a website while the page says "an app on this device".
 */
const BROWSER_SCHEMES = new Set([
  "googlechrome",
  "googlechromes",
  "googlechrome-x-callback",
  "firefox",
  "firefox-focus",
  "firefox-klar",
  "microsoft-edge",
  "microsoft-edge-http",
  "microsoft-edge-https",
  "opera-http",
  "opera-https",
  "touch-http",
  "touch-https",
  "x-safari-http",
  "x-safari-https",
  "brave",
  "ddgquicklink",
  "duckduckgo",
  "yandexbrowser-open-url",
  "samsunginternet",
  "x-web-search",
  "intent",
  "android-app",
]);
export const MAX_REDIRECT_URI_LENGTH = 2000;

/** Whether a non-web redirect URI would end at a website: a browser's scheme, or a web address inside. */
function handedToBrowser(url: URL): boolean {
  const scheme = url.protocol.slice(0, -1).toLowerCase();
  if (BROWSER_SCHEMES.has(scheme) || scheme.includes("http")) return true;
  // The web address may be the remainder itself (firefox:https://…) or a parameter, percent-encoded
  // (a byte at a time, so that a malformed sequence elsewhere hides nothing).
  let rest = url.href.slice(url.protocol.length);
  for (let round = 0; round < 4; round++) {
    if (/https?:/i.test(rest)) return true;
    const decoded = rest.replace(/%([0-9a-f]{2})/gi, (_, hex: string) =>
      String.fromCharCode(parseInt(hex, 16)),
    );
    if (decoded === rest) return false;
    rest = decoded;
  }
  return /https?:/i.test(rest);
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
  if (url.protocol !== "http:" && url.protocol !== "https:" && handedToBrowser(url)) {
    return `handed to a web browser (the ${url.protocol} scheme opens a website, not an app); register the https URI itself`;
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
