// The server as its own OAuth 2.1 authorization server for /mcp (--oauth): discovery (RFC 9728 protected
// resource metadata, RFC 8414 authorization server metadata), registration (RFC 7591) or client metadata
// documents, the consent page, the token and revocation endpoints, and the check of a request's token.
import { AsyncLocalStorage } from "node:async_hooks";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Dispatcher } from "undici";
import { audit } from "../audit.js";
import type { UpstreamSettings } from "../config/types.js";
import { log } from "../log.js";
import { RateLimited } from "../state/rate-limit.js";
import { type SharedStore, StoreUnavailableError } from "../state/store.js";
import { OAuthChallenge } from "./challenge.js";
import { oneClientAuthentication } from "./client-auth.js";
import { ClientDirectory, type KnownClient, OAuthFailure } from "./clients.js";
import { ConsentFlow } from "./consent.js";
import type { AuthorizedGrant } from "./grant.js";
import { API_HEADERS, readBody, readForm, sendOAuthError, sendOAuthJson, sendPreflight } from "./http-io.js";
import { MetadataFetcher, type MetadataFetcherOptions } from "./metadata-documents.js";
import { countRefusal, refusal } from "./metrics.js";
import { DEFAULT_SIGNIN_RATE_LIMIT, SignInLimits, sendTooMany } from "./rate-limits.js";
import { servedScopes, signInScopes } from "./scopes.js";
import { Keyring, TokenRefused } from "./seal.js";
import { TokenService } from "./tokens.js";

export { OAuthChallenge } from "./challenge.js";
export type { AuthorizedGrant } from "./grant.js";
export { grantSettings } from "./grant.js";

export interface OAuthSettings {
  /** The operator's secrets: the first seals, all open. */
  secrets: readonly string[];
  /** The origin clients reach the server at, without a trailing slash. */
  publicUrl: string;
  store: SharedStore;
  upstream: UpstreamSettings;
  dispatcher: Dispatcher;
  serverTools: ReadonlySet<string>;
  allowPrivateMetadata: boolean;
  /** The sandbox's key, shown on the consent page of a --demo server. */
  demoKey?: string;
  /** TLS options of client metadata fetches (tests: a local certificate authority). */
  metadataTls?: MetadataFetcherOptions["tls"];
  /** Bound on a client metadata fetch (default METADATA_TIMEOUT_MS). */
  metadataTimeoutMs?: number;
  /** Requests per minute per client address and endpoint (DEFAULT_SIGNIN_RATE_LIMIT); 0: no limits. */
  rateLimitPerMinute?: number;
  /** Proxies whose X-Forwarded-For names the client (--trusted-proxies): addresses or CIDR ranges. */
  trustedProxies?: readonly string[];
}

const PRM_PATHS = new Set([
  "/.well-known/oauth-protected-resource",
  "/.well-known/oauth-protected-resource/mcp",
]);
/** Where clients look for the authorization server's metadata: RFC 8414, OpenID's alias, and the forms suffixed with /mcp. */
const AS_PATHS = new Set([
  "/.well-known/oauth-authorization-server",
  "/.well-known/oauth-authorization-server/mcp",
  "/.well-known/openid-configuration",
  "/.well-known/openid-configuration/mcp",
  "/mcp/.well-known/openid-configuration",
]);
const ENDPOINT_PATHS = new Set(["/authorize", "/token", "/register", "/revoke"]);

export class OAuthServer {
  readonly issuer: string;
  readonly resource: string;
  readonly resourceMetadataUrl: string;
  private readonly tokens: TokenService;
  private readonly clients: ClientDirectory;
  private readonly consent: ConsentFlow;
  private readonly documents: MetadataFetcher;
  private readonly asMetadata: Record<string, unknown>;
  private readonly limits: SignInLimits;
  /** The address of the request being served: a metadata fetch it causes counts against it. */
  private readonly requester = new AsyncLocalStorage<string>();
  /** The scopes the served tools need (scopes_supported), and those a first sign-in asks for. */
  private readonly scopes: { supported: string[]; signIn: string[] };

  constructor(settings: OAuthSettings) {
    const origin = settings.publicUrl.replace(/\/+$/, "");
    this.issuer = origin;
    this.resource = `${origin}/mcp`;
    this.resourceMetadataUrl = `${origin}/.well-known/oauth-protected-resource/mcp`;
    const keys = new Keyring(settings.secrets);
    this.limits = new SignInLimits(
      settings.store,
      settings.rateLimitPerMinute ?? DEFAULT_SIGNIN_RATE_LIMIT,
      settings.trustedProxies,
    );
    this.documents = new MetadataFetcher({
      allowPrivate: settings.allowPrivateMetadata,
      tls: settings.metadataTls,
      timeoutMs: settings.metadataTimeoutMs,
      beforeFetch: () => this.limits.metadataFetch(this.requester.getStore() ?? "unknown"),
    });
    this.clients = new ClientDirectory(keys, this.documents);
    const audience = { issuer: this.issuer, resource: this.resource };
    this.tokens = new TokenService(settings.store, keys, audience);
    this.consent = new ConsentFlow({
      ...audience,
      store: settings.store,
      keys,
      clients: this.clients,
      upstream: settings.upstream,
      dispatcher: settings.dispatcher,
      serverTools: settings.serverTools,
      demoKey: settings.demoKey,
      secureCookies: origin.startsWith("https:"),
    });
    this.scopes = {
      supported: servedScopes(settings.serverTools),
      signIn: signInScopes(settings.serverTools),
    };
    const authMethods = ["none", "client_secret_post", "client_secret_basic"];
    this.asMetadata = {
      issuer: this.issuer,
      authorization_endpoint: `${origin}/authorize`,
      token_endpoint: `${origin}/token`,
      registration_endpoint: `${origin}/register`,
      revocation_endpoint: `${origin}/revoke`,
      response_types_supported: ["code"],
      response_modes_supported: ["query"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      code_challenge_methods_supported: ["S256"],
      scopes_supported: this.scopes.supported,
      token_endpoint_auth_methods_supported: authMethods,
      revocation_endpoint_auth_methods_supported: authMethods,
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
    };
  }

  /** Whether a path is the authorization server's to answer. */
  serves(path: string): boolean {
    return PRM_PATHS.has(path) || AS_PATHS.has(path) || ENDPOINT_PATHS.has(path);
  }

  async handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const address = this.limits.addressOf(req);
    try {
      if (ENDPOINT_PATHS.has(path) && req.method !== "OPTIONS") await this.limits.byAddress(path, address);
      await this.requester.run(address, () => this.route(req, res, path));
    } catch (error) {
      if (error instanceof RateLimited) return sendTooMany(res, path, error);
      // The shared store (Redis) cannot answer: a temporary failure, said as one; no address or detail.
      if (error instanceof StoreUnavailableError) {
        const failure = new OAuthFailure(
          "temporarily_unavailable",
          "sign-in is unavailable; try again shortly",
          503,
        );
        return sendOAuthError(res, failure, { "retry-after": "5" });
      }
      if (error instanceof OAuthFailure) return sendOAuthError(res, error);
      if (error instanceof TokenRefused)
        return sendOAuthError(res, new OAuthFailure("invalid_grant", error.message));
      log("error", "OAuth request failed", { path, error: error instanceof Error ? error.name : "unknown" });
      sendOAuthError(
        res,
        new OAuthFailure("server_error", "the request could not be completed; try again", 500),
      );
    }
  }

  private async route(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const method = req.method ?? "GET";
    if (method === "OPTIONS" && path !== "/authorize") return sendPreflight(res);
    if (PRM_PATHS.has(path) || AS_PATHS.has(path)) {
      if (method !== "GET") throw new OAuthFailure("invalid_request", "use GET", 405);
      const document = PRM_PATHS.has(path) ? this.resourceMetadata() : this.asMetadata;
      return sendOAuthJson(res, 200, document, { "cache-control": "max-age=3600" });
    }
    if (path === "/authorize") {
      // No per-client-id count here: nothing proves the client yet (docs/security.md).
      const query = new URL(req.url ?? "/", "http://x").searchParams;
      if (method === "GET") return this.consent.start(res, query);
      if (method === "POST") {
        // The form is posted from its own page: a browser says so in Origin.
        const origin = req.headers.origin;
        if (origin !== undefined && origin !== this.issuer) return this.consent.refuseForeignPost(res);
        return this.consent.submit(req, res);
      }
      throw new OAuthFailure("invalid_request", "use GET or POST", 405);
    }
    if (method !== "POST") throw new OAuthFailure("invalid_request", "use POST", 405);
    if (path === "/register") return this.register(req, res);
    if (path === "/token") return this.token(req, res);
    return this.revoke(req, res);
  }

  private resourceMetadata(): Record<string, unknown> {
    return {
      resource: this.resource,
      authorization_servers: [this.issuer],
      bearer_methods_supported: ["header"],
      scopes_supported: this.scopes.supported,
      resource_name: "agent-workspace-mcp",
    };
  }

  private async register(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const text = await readBody(req);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new OAuthFailure("invalid_client_metadata", "the registration is not JSON");
    }
    sendOAuthJson(res, 201, await this.clients.register(body));
  }

  private async token(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const form = await readForm(req);
    const client = await this.authenticate(form, req).catch((error) => {
      if (error instanceof OAuthFailure) {
        countRefusal("client_auth");
        // No client id: it is the caller's claim, unchecked.
        audit("signin_refused", { outcome: "refused", reason: "client_auth" });
      }
      throw error;
    });
    await this.limits.byClient("/token", client);
    const grantType = form.get("grant_type");
    let answer: unknown;
    if (grantType === "authorization_code") answer = await this.tokens.exchangeCode(form, client);
    else if (grantType === "refresh_token") answer = await this.tokens.refresh(form, client);
    else {
      audit("signin_refused", { client: client.clientId, outcome: "refused", reason: "grant_type" });
      throw refusal(
        "grant_type",
        "unsupported_grant_type",
        "grant_type must be authorization_code or refresh_token",
      );
    }
    sendOAuthJson(res, 200, answer);
  }

  private async revoke(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const form = await readForm(req);
    const client = await this.authenticate(form, req);
    await this.limits.byClient("/revoke", client);
    const token = form.get("token");
    if (!token) throw new OAuthFailure("invalid_request", "token is missing");
    await this.tokens.revoke(token, client);
    res.writeHead(200, { ...API_HEADERS, "content-length": 0 });
    res.end();
  }

  /** The client of a /token or /revoke request, which authenticates by one method only (below). */
  private async authenticate(form: URLSearchParams, req: IncomingMessage): Promise<KnownClient> {
    const authorization = req.headers.authorization;
    oneClientAuthentication(form, authorization);
    return this.clients.authenticate(form, authorization);
  }

  /** The grant a request's access token stands for; OAuthChallenge when the token is refused. */
  async verify(token: string): Promise<AuthorizedGrant> {
    try {
      return await this.tokens.verify(token);
    } catch (error) {
      if (error instanceof TokenRefused) throw new OAuthChallenge("invalid_token", error.message);
      throw error;
    }
  }

  /**
   * The headers of a refused /mcp request (401, or 403 insufficient_scope): where to find how to sign
   * in, and the scopes to ask for: a first sign-in's, or for a 403 what the call needs and the grant has.
   */
  challengeHeaders(challenge: OAuthChallenge): Record<string, string> {
    const scope = challenge.scope ?? this.scopes.signIn;
    const parts = [
      ...(challenge.error
        ? [`error="${challenge.error}"`, `error_description="${challenge.message.replace(/["\\]/g, "'")}"`]
        : []),
      ...(scope.length > 0 ? [`scope="${scope.join(" ")}"`] : []),
      `resource_metadata="${this.resourceMetadataUrl}"`,
    ];
    return { "www-authenticate": `Bearer ${parts.join(", ")}`, "cache-control": "no-store" };
  }

  close(): Promise<void> {
    return this.documents.close();
  }
}
