// Who asks, as the consent page can honestly say it: the host that was checked (a metadata document
// client's client_id URL, or a registered client's redirect URI), led by its registrable domain; an app
// on this device for a custom-scheme redirect; the name only as the client's own claim, with warnings.
import { getDomain, parse } from "tldts";
import { removeHidden } from "../tools/hidden.js";
import {
  ASSISTANTS,
  assistantAt,
  CLAIM_COMPANIES,
  type NameFlag,
  nameFlags,
  skeleton,
} from "./consent-names.js";
import { appDomainOf } from "./redirects.js";

export { type NameFlag, nameFlags, scriptsOf, skeleton } from "./consent-names.js";

/** Warnings about where the code goes: an app scheme that reads like a web address or an assistant. */
export type PlaceFlag =
  | { kind: "scheme_like_domain"; scheme: string }
  | { kind: "scheme_like_assistant"; scheme: string; assistant: string }
  | { kind: "scheme_names_known"; scheme: string; domain: string; assistant?: string };

export interface ClientIdentity {
  /** Where the host comes from: the client_id URL the document was fetched from, or the redirect URI. */
  source: "metadata_document" | "redirect_uri";
  /** The checked host (with its port), or, for an app on this device, its scheme. */
  host: string;
  /** The host's registrable domain (eTLD+1, by the Public Suffix List), when it has one. */
  domain?: string;
  /** Set when the code goes to an app on this device: the redirect URI's scheme (no ":"). */
  appScheme?: string;
  /** For a reverse-domain app scheme, the domain it names (com.example.app: example.com): the app's claim. */
  appDomain?: string;
  /** A metadata document published on a known assistant's own host: that assistant. */
  publishedBy?: string;
  /** The name the client gives itself: its own claim, never checked. */
  claimedName?: string;
  flags: (NameFlag | PlaceFlag)[];
}

/**
 * A host's registrable domain: the Public Suffix List's rule, private suffixes included (a site on
 * github.io or a cloud's shared domain belongs to whoever registered its own label), none for an IP.
 */
export function registrableDomain(host: string): string | undefined {
  const hostname = host.replace(/:\d+$/, "");
  return getDomain(hostname, { allowPrivateDomains: true }) ?? undefined;
}

/** The warnings an app scheme earns: dotted like a web address (not reverse-DNS), or an assistant's name. */
export function schemeFlags(scheme: string): PlaceFlag[] {
  const flags: PlaceFlag[] = [];
  const labels = scheme.toLowerCase().split(".");
  // claude.ai ends in a top-level domain and starts with a name; com.example.app (RFC 8252 §7.1's
  // reverse domain name) starts with a top-level domain.
  const tld = (label: string) => parse(label).isIcann === true;
  if (labels.length > 1 && tld(labels.at(-1) as string) && !tld(labels[0] as string)) {
    flags.push({ kind: "scheme_like_domain", scheme });
  }
  const known = knownDomainOf(scheme);
  if (known) flags.push({ kind: "scheme_names_known", scheme, ...known });
  const letters = skeleton(scheme).replace(/[^\p{L}\p{N}]/gu, "");
  const like = ASSISTANTS.find((a) => a.words.some((word) => letters.includes(skeleton(word))));
  if (like && like.name !== known?.assistant) {
    flags.push({ kind: "scheme_like_assistant", scheme, assistant: like.name });
  }
  return flags;
}

/**
 * The known domain a reverse-domain app scheme names: a known assistant's host or under one (ai.x: x.ai,
 * Grok's), or a domain registered by a company of `CLAIM_COMPANIES` (com.github.mobile: github.com).
 */
function knownDomainOf(scheme: string): { domain: string; assistant?: string } | undefined {
  const labels = scheme.toLowerCase().split(".");
  if (labels.length < 2) return undefined;
  const host = labels.reverse().join(".");
  const domain = appDomainOf(scheme) ?? host;
  for (const assistant of ASSISTANTS) {
    const own = assistant.hosts.find((h) => host === h || host.endsWith(`.${h}`));
    if (own) return { domain: own, assistant: assistant.name };
  }
  const company = parse(domain, { allowPrivateDomains: true }).domainWithoutSuffix ?? "";
  return CLAIM_COMPANIES.includes(company) ? { domain } : undefined;
}

/** What the page leads with for a client: the host it could check, then the name as a claim. */
export function identityOf(client: { clientId: string; name?: string }, redirectUri: string): ClientIdentity {
  const fromDocument = client.clientId.startsWith("https://");
  const back = new URL(redirectUri);
  const web = back.protocol === "https:" || back.protocol === "http:";
  const appScheme = web ? undefined : back.protocol.slice(0, -1);
  const host = fromDocument ? new URL(client.clientId).host : (appScheme ?? back.host);
  const domain = appScheme && !fromDocument ? undefined : registrableDomain(host);
  const appDomain = appScheme ? appDomainOf(appScheme) : undefined;
  const name = client.name === undefined ? undefined : removeHidden(client.name, { removed: 0 }).trim();
  // Only a document's host counts for a name: a redirect URI's host receives other parties' codes too.
  const publishedBy = fromDocument ? assistantAt(host) : undefined;
  return {
    source: fromDocument ? "metadata_document" : "redirect_uri",
    host,
    ...(domain ? { domain } : {}),
    ...(appScheme ? { appScheme } : {}),
    ...(appDomain ? { appDomain } : {}),
    ...(publishedBy ? { publishedBy } : {}),
    ...(name ? { claimedName: name } : {}),
    flags: [
      ...(name ? nameFlags(name, fromDocument ? host : undefined) : []),
      ...(appScheme ? schemeFlags(appScheme) : []),
    ],
  };
}
