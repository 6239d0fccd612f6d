// Plumbing of the sign-in tests: the HTTP transport with --oauth in front of the sandbox, an SDK v2
// OAuthClientProvider kept in memory, the consent page answered over HTTP as a browser would post it,
// and a local https server for client metadata documents (its certificate is a test fixture).
import { createHash, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { OAuthClientMetadata, OAuthClientProvider } from "@modelcontextprotocol/client";
import { createDispatcher } from "../src/clients/http.js";
import type { HttpSettings, UpstreamSettings } from "../src/config/types.js";
import type { Scope } from "../src/oauth/grant.js";
import { OAuthServer, type OAuthSettings } from "../src/oauth/index.js";
import { type Sandbox, startSandbox } from "../src/sandbox/index.js";
import type { ServerOptions } from "../src/server.js";
import { memoryStore, type SharedStore } from "../src/state/store.js";
import { ALL_TOOL_NAMES } from "../src/tools/register.js";
import { type RunningHttp, serveHttp } from "../src/transports/http/server.js";
import { perUserServers } from "../src/transports/http/user-servers.js";
import { httpSettings, TEST_LIMITS } from "./helpers.js";

export const TEST_SECRET = "test-secret-of-at-least-thirty-two-characters";
export const CA = readFileSync(new URL("fixtures/oauth-localhost.crt", import.meta.url), "utf8");
const TLS_KEY = readFileSync(new URL("fixtures/oauth-localhost.key", import.meta.url), "utf8");

export interface OAuthHarness {
  http: RunningHttp;
  url: string;
  origin: string;
  sandbox: Sandbox;
  store: SharedStore;
  close(): Promise<void>;
}

export interface OAuthHarnessOptions {
  argv?: string[];
  secrets?: string[];
  tools?: ReadonlySet<string>;
  store?: SharedStore;
  /** Whether client metadata may come from loopback (default: yes, the tests' https host is there). */
  allowPrivateMetadata?: boolean;
  metadataTimeoutMs?: number;
  /** --oauth-rate-limit (default here 0, no limits: only the tests of the limits ask for them). */
  rateLimitPerMinute?: number;
  /** TLS options of metadata fetches (default: trust the tests' metadata host's certificate). */
  metadataTls?: OAuthSettings["metadataTls"];
  /** --trusted-proxies. */
  trustedProxies?: string[];
  /** Settings of the HTTP transport beside --oauth. */
  httpOverrides?: Partial<HttpSettings>;
  /** The upstream the server calls (default: the sandbox). */
  upstream?: Partial<UpstreamSettings>;
  /** A running (recording) sandbox to serve, such as another harness's: close() leaves it running. */
  sandbox?: Sandbox;
  /** Whether --oauth is on (default: yes); off, the same server without sign-in. */
  signIn?: boolean;
  /** Options of the MCP servers built per request (the write confirmations' store, say). */
  serverOptions?: Omit<ServerOptions, "tools">;
}

/** The HTTP transport with sign-in, serving the sandbox (recorded) to whoever signs in with its key. */
export async function startOAuth(options: OAuthHarnessOptions = {}): Promise<OAuthHarness> {
  const sandbox = options.sandbox ?? (await startSandbox({ record: true }));
  // The operator's environment names the APIs but holds no key: every call uses the person's.
  const env: UpstreamSettings = {
    ...TEST_LIMITS,
    workspaceBaseUrl: sandbox.workspaceBaseUrl,
    analyticsBaseUrl: sandbox.analyticsBaseUrl,
    ...options.upstream,
  };
  const dispatcher = createDispatcher(env);
  const tools = options.tools ?? ALL_TOOL_NAMES;
  const store = options.store ?? memoryStore();
  const settings = (publicUrl: string): OAuthSettings => ({
    secrets: options.secrets ?? [TEST_SECRET],
    publicUrl,
    store,
    upstream: env,
    dispatcher,
    serverTools: tools,
    allowPrivateMetadata: options.allowPrivateMetadata ?? true,
    metadataTls: options.metadataTls ?? { ca: CA },
    metadataTimeoutMs: options.metadataTimeoutMs,
    rateLimitPerMinute: options.rateLimitPerMinute ?? 0,
    trustedProxies: options.trustedProxies,
  });
  const signIn = options.signIn ?? true;
  const http = await serveHttp(
    perUserServers(env, dispatcher, tools, options.serverOptions),
    { ...httpSettings(options.argv), oauth: signIn, oauthSecret: TEST_SECRET, ...options.httpOverrides },
    () => [],
    signIn ? { oauth: (publicUrl) => new OAuthServer(settings(publicUrl)) } : {},
  );
  const origin = new URL(http.url).origin;
  return {
    http,
    url: http.url,
    origin,
    sandbox,
    store,
    async close() {
      await http.close();
      await dispatcher.close();
      if (!options.sandbox) await sandbox.close();
    },
  };
}

/** An SDK v2 OAuthClientProvider holding everything in memory; the authorization URL it is sent to is kept. */
export class MemoryProvider implements OAuthClientProvider {
  authorizationUrl?: URL;
  private info?: { client_id: string; client_secret?: string };
  private saved?: { access_token: string; refresh_token?: string; token_type: string };
  private verifier = "";
  private discovery?: unknown;

  constructor(
    readonly redirectUrl: string,
    readonly clientMetadataUrl?: string,
    readonly name = "Test assistant",
  ) {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name,
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: { client_id: string; client_secret?: string }) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: { access_token: string; refresh_token?: string; token_type: string }) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  saveDiscoveryState(state: unknown) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery as never;
  }
  get accessToken(): string {
    if (!this.saved) throw new Error("no tokens yet");
    return this.saved.access_token;
  }
  get refreshToken(): string {
    const token = this.saved?.refresh_token;
    if (!token) throw new Error("no refresh token yet");
    return token;
  }
}

/** The value of a form field of the page (hidden inputs: request, csrf). */
export function fieldOf(html: string, name: string): string {
  const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
  if (!match?.[1]) throw new Error(`no ${name} field on the page`);
  return match[1];
}

export interface ConsentPage {
  status: number;
  html: string;
  headers: Headers;
  /** The cookie the page set, as a browser would send it back. */
  cookie: string;
}

export async function openConsent(authorizationUrl: URL | string): Promise<ConsentPage> {
  const response = await fetch(authorizationUrl, { redirect: "manual" });
  const cookie = (response.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  return { status: response.status, html: await response.text(), headers: response.headers, cookie };
}

/** Posts one step of the consent form, as a browser posts it from the page. */
export async function postConsent(
  origin: string,
  page: ConsentPage,
  fields: Record<string, string>,
  { csrf, cookie }: { csrf?: string; cookie?: string } = {},
): Promise<Response> {
  const body = new URLSearchParams({
    request: fieldOf(page.html, "request"),
    csrf: csrf ?? fieldOf(page.html, "csrf"),
    ...fields,
  });
  return fetch(`${origin}/authorize`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookie ?? page.cookie, origin },
    body,
  });
}

export interface Choice {
  workspaceKey: string;
  analyticsKey?: string;
  workspaceProject?: string;
  analyticsProject?: string;
  /** Also allow writing (workspace:write) beside the two read scopes; `scopes` says exactly instead. */
  write?: boolean;
  scopes?: readonly Scope[];
}

/** The consent form's fields that allow `scopes`: one checkbox per scope, as a browser posts ticked ones. */
export function scopeFields(scopes: readonly Scope[]): Record<string, string> {
  return Object.fromEntries(scopes.map((scope) => [scope, "1"]));
}

/** What a Choice allows: its scopes, or both reads (and workspace:write with `write`). */
export function scopesOf(choice: Pick<Choice, "write" | "scopes">): readonly Scope[] {
  return (
    choice.scopes ?? [
      "workspace:read",
      "analytics:read",
      ...(choice.write ? (["workspace:write"] as const) : []),
    ]
  );
}

/** The whole consent: key, then choices, then allow; the redirect's query (code, state, iss). */
export async function consent(
  origin: string,
  authorizationUrl: URL,
  choice: Choice,
): Promise<URLSearchParams> {
  const page = await openConsent(authorizationUrl);
  if (page.status !== 200) throw new Error(`consent page answered ${page.status}: ${page.html}`);
  const keyStep = await postConsent(origin, page, {
    step: "key",
    workspace_key: choice.workspaceKey,
    analytics_key: choice.analyticsKey ?? "",
  });
  const chooser = { ...page, html: await keyStep.text() };
  if (keyStep.status !== 200) throw new Error(`key step answered ${keyStep.status}: ${chooser.html}`);
  const allowed = await postConsent(origin, chooser, {
    step: "allow",
    workspace_project: choice.workspaceProject ?? "",
    analytics_project: choice.analyticsProject ?? "",
    ...scopeFields(scopesOf(choice)),
  });
  const location = allowed.headers.get("location");
  if (allowed.status !== 303 || !location) throw new Error(`allow answered ${allowed.status}`);
  return new URL(location).searchParams;
}

/** A local https server answering client metadata document requests with `respond`. */
export async function startMetadataHost(
  respond: (path: string, res: import("node:http").ServerResponse, origin: string) => void,
): Promise<{ origin: string; server: HttpsServer; close(): Promise<void> }> {
  let origin = "";
  const server = createHttpsServer({ key: TLS_KEY, cert: CA }, (req, res) =>
    respond(req.url ?? "/", res, origin),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface HandFlow {
  clientId: string;
  redirectUri: string;
  verifier: string;
  challenge: string;
  authorizationUrl: URL;
}

/** Registers a public client by DCR and builds its authorization URL, PKCE S256, as a client would. */
export async function startFlow(
  origin: string,
  { redirectUri = "http://127.0.0.1:53682/callback", name = "Hand client" } = {},
): Promise<HandFlow> {
  const registered = await fetch(`${origin}/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      redirect_uris: [redirectUri],
      client_name: name,
      token_endpoint_auth_method: "none",
    }),
  });
  if (registered.status !== 201) throw new Error(`register answered ${registered.status}`);
  const { client_id: clientId } = (await registered.json()) as { client_id: string };
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const authorizationUrl = new URL(`${origin}/authorize`);
  for (const [key, value] of Object.entries({
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "state-1",
    resource: `${origin}/mcp`,
  })) {
    authorizationUrl.searchParams.set(key, value);
  }
  return { clientId, redirectUri, verifier, challenge, authorizationUrl };
}

/** POSTs a form to the token or revocation endpoint; the status and the parsed JSON (or undefined). */
export async function postForm(
  url: string,
  fields: Record<string, string>,
): Promise<{ status: number; body: Record<string, unknown> | undefined; headers: Headers }> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
}

export interface Tokens {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  token_type: string;
}

/** The whole flow by hand: register, consent, code for tokens. */
export async function signInByHand(
  origin: string,
  choice: Choice,
): Promise<{ flow: HandFlow; tokens: Tokens }> {
  const flow = await startFlow(origin);
  const callback = await consent(origin, flow.authorizationUrl, choice);
  const answer = await postForm(`${origin}/token`, {
    grant_type: "authorization_code",
    code: callback.get("code") ?? "",
    redirect_uri: flow.redirectUri,
    code_verifier: flow.verifier,
    client_id: flow.clientId,
    resource: `${origin}/mcp`,
  });
  if (answer.status !== 200)
    throw new Error(`token answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return { flow, tokens: answer.body as unknown as Tokens };
}

/** The code of a finished consent exchanged at `origin`'s token endpoint, as the flow's client. */
export function exchangeAt(origin: string, flow: HandFlow, code: string) {
  return postForm(`${origin}/token`, {
    grant_type: "authorization_code",
    code,
    redirect_uri: flow.redirectUri,
    code_verifier: flow.verifier,
    client_id: flow.clientId,
  });
}

/** A refresh at `origin`'s token endpoint, as the client `clientId`. */
export function refreshAt(origin: string, clientId: string, refreshToken: string) {
  return postForm(`${origin}/token`, {
    grant_type: "refresh_token",
    refresh_token: refreshToken,
    client_id: clientId,
  });
}

/** A revocation (RFC 7009) at `origin`, as the client `clientId`. */
export function revokeAt(origin: string, clientId: string, token: string) {
  return postForm(`${origin}/revoke`, { token, client_id: clientId });
}

/** One JSON-RPC POST to /mcp in the 2025 stateless style of a raw client: status, headers and body text. */
export async function rawMcp(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Headers; text: string }> {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    }),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}
