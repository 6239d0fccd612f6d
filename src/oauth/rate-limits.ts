// The sign-in endpoints' rate limits (docs/security.md): per client address on /authorize, /token,
// /register and /revoke, per client id only for a client that proved itself with its secret (a budget
// anyone could spend by naming a client id would lock its real users out), and per client address on
// client metadata fetches (a budget per host would be one anyone spends for the host's real client),
// each counted per minute in the shared store. Past a limit: 429 with Retry-After, the OAuth error
// JSON on the API endpoints and a short page on /authorize, which a browser shows.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { BlockList } from "node:net";
import { type RateLimited, RateLimiter } from "../state/rate-limit.js";
import type { SharedStore } from "../state/store.js";
import { clientAddress, trustedProxies } from "./client-address.js";
import { type KnownClient, OAuthFailure } from "./clients.js";
import { errorPageHeaders, newNonce, renderErrorPage } from "./consent-page.js";
import { sendHtml, sendOAuthError } from "./http-io.js";

/** Requests per minute one address may make to each endpoint, unless --oauth-rate-limit says otherwise. */
export const DEFAULT_SIGNIN_RATE_LIMIT = 60;
/** A confidential client is shared by everyone who uses that application: it gets this many addresses' budget. */
export const CLIENT_ID_FACTOR = 10;
/** Client metadata documents one address's requests may fetch per minute (a cached document or failure costs none). */
export const METADATA_FETCHES_PER_ADDRESS = 30;

export class SignInLimits {
  private readonly limiter: RateLimiter;
  private readonly trusted: BlockList | undefined;

  constructor(
    store: SharedStore,
    private readonly perMinute: number,
    proxies: readonly string[] | undefined,
  ) {
    this.limiter = new RateLimiter(store);
    this.trusted = trustedProxies(proxies);
  }

  /** The address a request counts under (client-address.ts). */
  addressOf(req: IncomingMessage): string {
    return clientAddress(req, this.trusted);
  }

  /** Counts a request to `path` against its client's address. */
  byAddress(path: string, address: string): Promise<void> {
    return this.limiter.hit(`${path.slice(1)}:address:${address}`, this.perMinute);
  }

  /**
   * Counts a request to `path` against its client, when the client authenticated with its secret. A
   * public client's id proves nothing (anyone can name it, and its tokens prove one person, whose loop
   * would spend every other user's budget): its requests count by address only.
   */
  byClient(path: string, client: KnownClient): Promise<void> {
    if (client.secret === undefined) return Promise.resolve();
    return this.limiter.hit(`${path.slice(1)}:client:${client.clientId}`, this.perMinute * CLIENT_ID_FACTOR);
  }

  /** Counts one outbound fetch of a client metadata document against the address whose request needs it. */
  metadataFetch(address: string): Promise<void> {
    return this.limiter.hit(
      `metadata:address:${address}`,
      this.perMinute > 0 ? METADATA_FETCHES_PER_ADDRESS : 0,
    );
  }
}

/** The 429 answer: a page for the browser's /authorize, the OAuth error JSON for the other endpoints. */
export function sendTooMany(res: ServerResponse, path: string, limited: RateLimited): void {
  const retryAfter = { "retry-after": String(limited.retryAfterSeconds) };
  if (path === "/authorize") {
    const nonce = newNonce();
    const page = renderErrorPage(
      `Too many sign-in requests came from your network or for this application just now. Try again in ${limited.retryAfterSeconds} seconds.`,
      nonce,
    );
    sendHtml(res, 429, page, { ...errorPageHeaders(nonce), ...retryAfter });
    return;
  }
  const failure = new OAuthFailure(
    "temporarily_unavailable",
    `too many requests; try again in ${limited.retryAfterSeconds} s`,
    429,
  );
  sendOAuthError(res, failure, retryAfter);
}
