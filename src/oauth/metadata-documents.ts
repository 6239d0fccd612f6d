// Client ID Metadata Documents: a client_id that is an https URL names the document describing the
// client. Fetching it is fetching a URL an anonymous caller chose, so: https only, no query string, the
// address it resolves to checked at connect time (no loopback, private or link-local address unless
// allowed for tests), no redirects, a size cap and a timeout, a bound on fetches per requesting address
// (beforeFetch), one fetch at a time per URL; kept as its Cache-Control says, within a cap. Whatever
// goes wrong, the caller is told one thing (the detail goes to the debug log), no earlier than the
// fetch's time bound, and a failed URL is remembered a minute: neither the answer nor its timing tells a
// closed port from an open one.
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { BlockList, isIP, type LookupFunction } from "node:net";
import { setTimeout as delay } from "node:timers/promises";
import type { Dispatcher } from "undici";
import requestOn from "undici/lib/api/api-request.js";
import UndiciAgent from "undici/lib/dispatcher/agent.js";
import { log } from "../log.js";

export const METADATA_MAX_BYTES = 5 * 1024;
export const METADATA_TIMEOUT_MS = 5_000;
const MAX_CACHE_SECONDS = 24 * 3600;
const MAX_CACHED = 1000;
/** How long a URL whose fetch failed answers from memory: probing it again costs no fetch and tells nothing. */
export const METADATA_FAILURE_CACHE_MS = 60_000;

/** The fetcher's clock: tests replace it, so that a failure's wait is asked of it, never measured. */
export const metadataClock = {
  now: (): number => performance.now(),
  sleep: (ms: number): Promise<void> => delay(ms),
};

/** A document that cannot be used; the message says why, without echoing its contents. */
export class MetadataDocumentError extends Error {}

/** All a caller learns of a fetch or a document that failed. */
export const METADATA_FETCH_FAILED =
  "the client's metadata document could not be fetched, or is not a valid document for this client_id";

/** Address ranges a metadata fetch never connects to (RFC 6890 special-purpose, loopback, private). */
const FORBIDDEN = new BlockList();
for (const [prefix, bits] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  FORBIDDEN.addSubnet(prefix, bits, "ipv4");
}
for (const [prefix, bits] of [
  ["::", 128],
  ["::1", 128],
  ["::ffff:0:0", 96],
  ["64:ff9b::", 96],
  ["100::", 64],
  ["2001:db8::", 32],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const) {
  FORBIDDEN.addSubnet(prefix, bits, "ipv6");
}

export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return FORBIDDEN.check(address, "ipv4");
  if (family === 6) {
    // An IPv4 address written as IPv6 is judged as the IPv4 address it is.
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped?.[1]) return FORBIDDEN.check(mapped[1], "ipv4");
    return FORBIDDEN.check(address, "ipv6");
  }
  return true;
}

/** A DNS lookup that refuses, at connect time, any answer in a forbidden range: no rebinding between check and use. */
function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, "", 0);
      const refused = allowPrivate ? undefined : addresses.find(({ address }) => isForbiddenAddress(address));
      if (refused || addresses.length === 0) {
        const denial = Object.assign(new Error("the client's metadata host resolves to a private address"), {
          code: "EADDRNOTALLOWED",
        });
        return callback(denial, "", 0);
      }
      if (options.all) return (callback as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0] as LookupAddress;
      callback(null, first.address, first.family);
    });
  };
}

/** Why a client_id URL cannot name a metadata document, or undefined when it can. */
export function metadataUrlProblem(clientId: string): string | undefined {
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return "not a URL";
  }
  if (url.protocol !== "https:") return "a client_id URL must be https";
  if (url.username || url.password || clientId.includes("#"))
    return "a client_id URL has no user, password or fragment";
  // Each query string would name a document of its own to fetch: one URL per client, without one.
  if (clientId.includes("?")) return "a client_id URL has no query string here";
  if (url.pathname === "/" || /\/\.\.?(\/|$)/.test(url.pathname))
    return "a client_id URL needs a path without . or .. segments";
  if (clientId.length > 2000) return "a client_id URL is at most 2000 characters";
  return undefined;
}

export interface ClientMetadata {
  client_id: string;
  client_name?: string;
  client_uri?: string;
  redirect_uris: string[];
  token_endpoint_auth_method?: string;
}

export interface MetadataFetcherOptions {
  allowPrivate: boolean;
  /** Extra TLS options (tests: the certificate authority of a local https server). */
  tls?: { ca?: string | Buffer };
  timeoutMs?: number;
  /**
   * Called, in the request that needs it, before each outbound fetch (never for a cached document, a
   * remembered failure or a fetch under way); what it throws (the requester's rate limit) ends that request only.
   */
  beforeFetch?: () => Promise<void>;
}

export class MetadataFetcher {
  private readonly dispatcher: Dispatcher;
  private readonly cache = new Map<string, { document: ClientMetadata; until: number }>();
  /** URLs whose fetch failed, until when (metadataClock time). */
  private readonly failures = new Map<string, number>();
  /** Fetches under way, by URL: a second caller waits on the first instead of fetching again. */
  private readonly pending = new Map<string, Promise<ClientMetadata>>();
  private readonly timeoutMs: number;
  private readonly allowPrivate: boolean;
  private readonly beforeFetch: () => Promise<void>;

  constructor(options: MetadataFetcherOptions) {
    this.allowPrivate = options.allowPrivate;
    this.beforeFetch = options.beforeFetch ?? (async () => {});
    this.timeoutMs = options.timeoutMs ?? METADATA_TIMEOUT_MS;
    this.dispatcher = new UndiciAgent({
      connect: { lookup: guardedLookup(options.allowPrivate), timeout: this.timeoutMs, ...options.tls },
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
      maxResponseSize: METADATA_MAX_BYTES,
    });
  }

  /** The document a client_id URL names; MetadataDocumentError (one message) when it cannot be used. */
  async fetch(clientId: string): Promise<ClientMetadata> {
    // Kept by the URL without its query: a new query string is never a new fetch.
    const url = new URL(clientId);
    const key = `${url.origin}${url.pathname}`;
    const known = this.known(key);
    if (known) return this.matching(await known, clientId);
    // The requester pays before the fetch is shared: a refusal of theirs never reaches another caller.
    await this.beforeFetch();
    const meanwhile = this.known(key);
    if (meanwhile) return this.matching(await meanwhile, clientId);
    const fetching = this.fetchOnce(key, url.host);
    this.pending.set(key, fetching);
    try {
      return this.matching(await fetching, clientId);
    } finally {
      this.pending.delete(key);
    }
  }

  /** What is known of a URL without fetching it: its cached document, its remembered failure, its fetch under way. */
  private known(key: string): Promise<ClientMetadata> | undefined {
    const cached = this.cache.get(key);
    if (cached && cached.until > Date.now()) return Promise.resolve(cached.document);
    const failedUntil = this.failures.get(key);
    if (failedUntil !== undefined && failedUntil > metadataClock.now()) {
      return Promise.reject(new MetadataDocumentError(METADATA_FETCH_FAILED));
    }
    return this.pending.get(key);
  }

  private async fetchOnce(key: string, host: string): Promise<ClientMetadata> {
    const started = metadataClock.now();
    try {
      const { document, maxAgeSeconds } = await this.download(key);
      if (maxAgeSeconds > 0) {
        if (this.cache.size >= MAX_CACHED) this.cache.delete(this.cache.keys().next().value as string);
        this.cache.set(key, { document, until: Date.now() + maxAgeSeconds * 1000 });
      }
      return document;
    } catch (error) {
      if (!(error instanceof MetadataDocumentError)) throw error;
      log("debug", "client metadata document refused", { host, reason: error.message });
      this.failures.delete(key);
      if (this.failures.size >= MAX_CACHED) this.failures.delete(this.failures.keys().next().value as string);
      this.failures.set(key, metadataClock.now() + METADATA_FAILURE_CACHE_MS);
      // A refused port fails at once, a silent one at the bound: every failure answers at the bound.
      await metadataClock.sleep(Math.max(0, started + this.timeoutMs - metadataClock.now()));
      throw new MetadataDocumentError(METADATA_FETCH_FAILED);
    }
  }

  /** The document, when it names exactly this client_id (the draft: the URL it was fetched from). */
  private matching(document: ClientMetadata, clientId: string): ClientMetadata {
    if (document.client_id !== clientId) {
      log("debug", "client metadata document refused", { reason: "it names another client_id" });
      throw new MetadataDocumentError(METADATA_FETCH_FAILED);
    }
    return document;
  }

  private async download(clientId: string): Promise<{ document: ClientMetadata; maxAgeSeconds: number }> {
    const url = new URL(clientId);
    // An IP literal never goes through the lookup: it is judged here.
    const literal = url.hostname.replace(/^\[|\]$/g, "");
    if (isIP(literal) && isForbiddenAddress(literal) && !this.allowPrivate) {
      throw new MetadataDocumentError("the client's metadata URL names a private address");
    }
    let answer: Dispatcher.ResponseData;
    try {
      answer = await requestOn.call(this.dispatcher, {
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: "GET",
        headers: { accept: "application/json" },
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (
        code === "EADDRNOTALLOWED" ||
        (error as { cause?: { code?: string } }).cause?.code === "EADDRNOTALLOWED"
      ) {
        throw new MetadataDocumentError("the client's metadata host resolves to a private address");
      }
      if (code === "UND_ERR_RES_EXCEEDED_MAX_SIZE") {
        throw new MetadataDocumentError(
          `the client's metadata document is larger than ${METADATA_MAX_BYTES} bytes`,
        );
      }
      const timedOut = (error as Error).name === "TimeoutError";
      throw new MetadataDocumentError(
        `the client's metadata document could not be fetched (${timedOut ? `no answer within ${this.timeoutMs} ms` : (code ?? "error")})`,
      );
    }
    if (answer.statusCode !== 200) {
      // Read to its end (within the size cap), so no part of it is left to fail later.
      await answer.body.dump({ limit: METADATA_MAX_BYTES }).catch(() => {});
      throw new MetadataDocumentError(
        `the client's metadata URL answered ${answer.statusCode}${answer.statusCode >= 300 && answer.statusCode < 400 ? " (redirects are not followed)" : ""}`,
      );
    }
    const document = parseDocument(await readCapped(answer), clientId);
    return { document, maxAgeSeconds: maxAgeOf(answer.headers["cache-control"]) };
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }
}

async function readCapped(answer: Dispatcher.ResponseData): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of answer.body) {
      size += (chunk as Buffer).length;
      if (size > METADATA_MAX_BYTES) {
        answer.body.destroy();
        throw new MetadataDocumentError(
          `the client's metadata document is larger than ${METADATA_MAX_BYTES} bytes`,
        );
      }
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if (error instanceof MetadataDocumentError) throw error;
    const code = (error as { code?: string }).code;
    if (code === "UND_ERR_RES_EXCEEDED_MAX_SIZE") {
      throw new MetadataDocumentError(
        `the client's metadata document is larger than ${METADATA_MAX_BYTES} bytes`,
      );
    }
    throw new MetadataDocumentError(
      `the client's metadata document could not be read (${code ?? "timeout"})`,
    );
  }
  return Buffer.concat(chunks).toString("utf8");
}

function maxAgeOf(header: string | string[] | undefined): number {
  const value = Array.isArray(header) ? header.join(",") : (header ?? "");
  if (/\bno-store\b|\bno-cache\b/i.test(value)) return 0;
  const match = /\bmax-age=(\d+)/i.exec(value);
  return match ? Math.min(Number(match[1]), MAX_CACHE_SECONDS) : 0;
}

function parseDocument(text: string, clientId: string): ClientMetadata {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new MetadataDocumentError("the client's metadata document is not JSON");
  }
  const doc = value as Partial<ClientMetadata> | null;
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) {
    throw new MetadataDocumentError("the client's metadata document is not a JSON object");
  }
  if (doc.client_id !== clientId) {
    throw new MetadataDocumentError("the client's metadata document names another client_id than its URL");
  }
  if (!Array.isArray(doc.redirect_uris) || !doc.redirect_uris.every((uri) => typeof uri === "string")) {
    throw new MetadataDocumentError("the client's metadata document has no redirect_uris list");
  }
  const method = doc.token_endpoint_auth_method ?? "none";
  if (method !== "none") {
    throw new MetadataDocumentError(
      `token_endpoint_auth_method ${String(method).slice(0, 40)} is not supported: use none`,
    );
  }
  return {
    client_id: clientId,
    client_name: typeof doc.client_name === "string" ? doc.client_name : undefined,
    client_uri: typeof doc.client_uri === "string" ? doc.client_uri : undefined,
    redirect_uris: doc.redirect_uris,
    token_endpoint_auth_method: method,
  };
}
