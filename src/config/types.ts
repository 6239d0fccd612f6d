// The typed configuration the server runs on, and the error a setting that cannot be used raises.
// The settings table (settings.ts) fills a Config; parse.ts reads it from flags and the environment.

/** What the upstream clients need; per-user values (key, project, workspace) may override the environment's. */
export interface UpstreamSettings {
  workspaceBaseUrl?: string;
  analyticsBaseUrl?: string;
  workspaceApiKey?: string;
  /** Overrides workspaceApiKey for the analytics API. */
  analyticsApiKey?: string;
  /** Where the keys came from, for a 401's next step: the environment (default) or a user's X-API-KEY header. */
  apiKeySource?: "environment" | "header";
  workspaceProjectId?: string;
  workspaceId?: string;
  analyticsProjectId?: string;
  /** Bounds each upstream call from connect to last body byte. */
  timeoutMs: number;
  /** No retry starts later than this after the call began (attempts and waits both count). */
  retryBudgetMs: number;
  /** Upstream bodies larger than this are cut off. */
  maxResponseBytes: number;
  /** Upstream requests in flight at once, per API key. */
  concurrency: number;
  // Answers sized for a model's context (docs/context-cost.md); tests may leave them out.
  /** The form of an answer when a call does not choose one (default: concise). */
  responseFormat?: "concise" | "full";
  /** Token budget of a concise answer; a full one gets at least 20,000 (default: 8000). */
  maxResultTokens?: number;
  /** Ask the person (elicitation) before any call that creates data is sent (src/tools/confirm.ts). */
  confirmWrites?: boolean;
  /** off: answers' text as the APIs sent it, hidden characters and Markdown included (default: on). */
  sanitize?: "on" | "off";
  /**
   * Where a person sets these, for messages that say what to set: environment variables (default), or
   * the form of the Claude Desktop extension (src/settings-names.ts).
   */
  settingsFrom?: "environment" | "mcpb";
  /** The settings given by flag rather than by variable: messages name those by their flag. */
  givenByFlag?: readonly ConfigKey[];
}

export interface HttpSettings {
  host: string;
  port: number;
  /** No session state: every POST stands alone (for scale-out behind a load balancer). */
  stateless: boolean;
  sessionIdleMs: number;
  maxSessions: number;
  /** Host names clients may use (DNS-rebinding protection); loopback names are always allowed. */
  allowedHosts: string[];
  /** Bearer token every /mcp request must carry, from MCP_AUTH_TOKEN or --auth-token-file. */
  authToken?: string;
  allowUnauthenticated: boolean;
  maxBodyBytes: number;
  corsOrigins: string[];
  shutdownGraceMs: number;
  // Bounds on what one client can hold: a socket (slow headers, slow body, idle keep-alive) and sessions.
  /** A client that has not sent a request's headers within this is cut off (408, then closed). */
  headersTimeoutMs: number;
  /** A client that has not sent a whole request (headers and body) within this is cut off. */
  requestTimeoutMs: number;
  /** A kept-alive connection idle this long is closed. */
  keepAliveTimeoutMs: number;
  /** Sessions one API key (X-API-KEY, or the environment's) may hold open. */
  maxSessionsPerKey: number;
  // Sign-in (src/oauth/): the server is its own OAuth 2.1 authorization server for /mcp.
  oauth: boolean;
  /** Secrets sealing grants and tokens, comma-separated: the first seals, every one opens (rotation). */
  oauthSecret?: string;
  /** The origin clients reach this server at; undefined: http://host:port as bound. */
  publicUrl?: string;
  /** Fetch client metadata documents from loopback and private addresses too (tests only). */
  oauthAllowPrivateMetadata: boolean;
  /** The Redis replicas share state in (src/state/redis.ts); none: this process keeps it in memory. */
  redisUrl?: string;
  /** Requests per minute one client address may make to each sign-in endpoint; 0: no limit. */
  oauthRateLimit: number;
  /** Proxies (addresses, CIDR ranges) whose X-Forwarded-For names the client a rate limit counts. */
  trustedProxies: string[];
}

export interface ToolSelection {
  /** Toolset names to serve; undefined: all. */
  toolsets?: string[];
  /** Exact allow-list of tool names; undefined: all of the chosen toolsets. */
  tools?: string[];
  /** Hide tools that create data. */
  readOnly: boolean;
  /** Serve no report view (MCP Apps) and link none from the tools. */
  noReportView?: boolean;
}

/** What the server tells operators about itself (src/telemetry/): off unless asked for. */
export interface TelemetrySettings {
  /** Port of the Prometheus endpoint (/metrics) on a listener of its own; undefined: none. */
  metricsPort?: number;
  /** Address that listener binds. */
  metricsHost: string;
  /** Record tool arguments and results on spans (people's text; keys are redacted whatever this says). */
  recordContent: boolean;
}

export type LogLevel = "debug" | "info" | "notice" | "warning" | "error";

export interface Config {
  transport: "stdio" | "http";
  demo: boolean;
  logLevel: LogLevel;
  http: HttpSettings;
  upstream: UpstreamSettings;
  tools: ToolSelection;
  telemetry: TelemetrySettings;
}

export type CliCommand = { kind: "help" } | { kind: "version" } | { kind: "serve"; config: Config };

/** A setting that cannot be used; `settings` are those it concerns, whose help lines go with the message. */
export class ConfigError extends Error {
  constructor(
    message: string,
    readonly settings: readonly ConfigKey[] = [],
  ) {
    super(message);
  }
}

/** Where a value lands in Config: a top-level field, or "group.field". */
export type ConfigKey =
  | "transport"
  | "demo"
  | "logLevel"
  | `http.${keyof HttpSettings}`
  | `upstream.${Exclude<keyof UpstreamSettings, "apiKeySource" | "givenByFlag">}`
  | `tools.${keyof ToolSelection}`
  | `telemetry.${keyof TelemetrySettings}`;
