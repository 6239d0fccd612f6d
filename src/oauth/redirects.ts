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
export const MAX_REDIRECT_URI_LENGTH = 2000;

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
