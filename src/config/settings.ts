// The settings table: every setting once, keyed by where its value lands in Config, with its flag,
// variable, kind, default and help line. The parser (parse.ts) walks it, --help (help.ts) prints it,
// and tests hold the README's table and server.json to it.
import {
  commaList,
  Derived,
  type Kind,
  oneOf,
  onOff,
  plainText,
  redis,
  url,
  uuid,
  wholeNumber,
} from "./kinds.js";
import type { Config, ConfigKey } from "./types.js";

export type Section = "Options" | "Upstream options" | "HTTP options" | "Telemetry options";

type SettingSpec<T> = {
  /** Read when its flag is not given; empty counts as not set. */
  env: string;
  kind: Kind<NonNullable<T>>;
  /** The value when neither the flag nor the variable gives one. */
  default: T | Derived<T>;
  section: Section;
  /** One line, for --help and the README. */
  help: string;
} & (
  | { flag: string; secret?: undefined }
  // A secret: no flag takes its value (it would show in the process list); one may name a file holding it.
  | { flag?: string; secret: true }
);

type ValueAt<K extends ConfigKey> =
  K extends `${infer G extends "http" | "upstream" | "tools" | "telemetry"}.${infer F}`
    ? Config[G][F & keyof Config[G]]
    : Config[K & keyof Config];

/** Every setting, one per field of Config, in --help's order; the compiler holds each kind to its field's type. */
export const TABLE: { [K in ConfigKey]: SettingSpec<ValueAt<K>> } = {
  transport: {
    flag: "transport",
    env: "MCP_TRANSPORT",
    kind: oneOf(["stdio", "http"]),
    default: "stdio",
    section: "Options",
    help: "how clients connect: stdio or http",
  },
  demo: {
    flag: "demo",
    env: "MCP_DEMO",
    kind: onOff,
    default: false,
    section: "Options",
    help: "serve against the built-in sandbox, no account needed",
  },
  "tools.toolsets": {
    flag: "toolsets",
    env: "MCP_TOOLSETS",
    kind: commaList,
    default: new Derived("both", () => undefined),
    section: "Options",
    help: "toolsets to serve: workspace, analytics",
  },
  "tools.tools": {
    flag: "tools",
    env: "MCP_TOOLS",
    kind: commaList,
    default: new Derived("all of the toolsets", () => undefined),
    section: "Options",
    help: "exact allow-list of tool names",
  },
  "tools.readOnly": {
    flag: "read-only",
    env: "MCP_READ_ONLY",
    kind: onOff,
    default: false,
    section: "Options",
    help: "hide the tools that create data",
  },
  "upstream.confirmWrites": {
    flag: "confirm-writes",
    env: "MCP_CONFIRM_WRITES",
    kind: onOff,
    default: false,
    section: "Options",
    help: "ask the person before a call that creates data is sent",
  },
  "tools.noReportView": {
    flag: "no-report-view",
    env: "MCP_NO_REPORT_VIEW",
    kind: onOff,
    default: false,
    section: "Options",
    help: "serve no report view (MCP Apps charts) and link none from the tools",
  },
  "upstream.responseFormat": {
    flag: "response-format",
    env: "MCP_RESPONSE_FORMAT",
    kind: oneOf(["concise", "full"], "<form>"),
    default: "concise",
    section: "Options",
    help: "concise or full: the answer form of calls that do not choose",
  },
  "upstream.maxResultTokens": {
    flag: "max-result-tokens",
    env: "MCP_MAX_RESULT_TOKENS",
    kind: wholeNumber("<n>", 500, 1_000_000),
    default: 8000,
    section: "Options",
    help: "token budget of a concise answer; a full one gets at least 20000",
  },
  "upstream.sanitize": {
    flag: "sanitize",
    env: "MCP_SANITIZE",
    kind: oneOf(["on", "off"]),
    default: "on",
    section: "Options",
    help: "off passes hidden characters and Markdown from the APIs as sent",
  },
  "upstream.settingsFrom": {
    flag: "settings-from",
    env: "MCP_SETTINGS_FROM",
    kind: oneOf(["environment", "mcpb"], "<where>"),
    default: "environment",
    section: "Options",
    help: "mcpb: messages name the Claude Desktop extension's fields",
  },
  logLevel: {
    flag: "log-level",
    env: "LOG_LEVEL",
    kind: oneOf(["debug", "info", "notice", "warning", "error"], "<level>"),
    default: "info",
    section: "Options",
    help: "lowest level logged to stderr: debug, info, notice, warning, error",
  },
  "http.shutdownGraceMs": {
    flag: "shutdown-grace-ms",
    env: "MCP_SHUTDOWN_GRACE_MS",
    kind: wholeNumber("<ms>", 0),
    default: 10_000,
    section: "Options",
    help: "time calls in flight get to finish on SIGTERM, on stdio too",
  },
  "upstream.workspaceApiKey": {
    env: "WORKSPACE_API_KEY",
    secret: true,
    kind: plainText("<key>"),
    default: undefined,
    section: "Upstream options",
    help: "API key for both APIs, sent as X-API-KEY",
  },
  "upstream.analyticsApiKey": {
    env: "ANALYTICS_API_KEY",
    secret: true,
    kind: plainText("<key>"),
    default: undefined,
    section: "Upstream options",
    help: "overrides the key for the analytics API",
  },
  "upstream.workspaceBaseUrl": {
    flag: "workspace-base-url",
    env: "WORKSPACE_BASE_URL",
    kind: url,
    default: undefined,
    section: "Upstream options",
    help: "base URL of the agent-workspace API",
  },
  "upstream.analyticsBaseUrl": {
    flag: "analytics-base-url",
    env: "ANALYTICS_BASE_URL",
    kind: url,
    default: undefined,
    section: "Upstream options",
    help: "base URL of the analytics API",
  },
  "upstream.workspaceProjectId": {
    flag: "workspace-project-id",
    env: "WORKSPACE_PROJECT_ID",
    kind: uuid,
    default: undefined,
    section: "Upstream options",
    help: "default project of the workspace tools",
  },
  "upstream.workspaceId": {
    flag: "workspace-id",
    env: "WORKSPACE_ID",
    kind: uuid,
    default: undefined,
    section: "Upstream options",
    help: "default workspace, sent as X-Workspace-Id",
  },
  "upstream.analyticsProjectId": {
    flag: "analytics-project-id",
    env: "ANALYTICS_PROJECT_ID",
    kind: uuid,
    default: undefined,
    section: "Upstream options",
    help: "default project of the geo_ tools",
  },
  "upstream.timeoutMs": {
    flag: "upstream-timeout-ms",
    env: "UPSTREAM_TIMEOUT_MS",
    kind: wholeNumber("<ms>", 1),
    default: 30_000,
    section: "Upstream options",
    help: "bound on each upstream attempt, connect to last byte",
  },
  "upstream.retryBudgetMs": {
    flag: "upstream-retry-budget-ms",
    env: "UPSTREAM_RETRY_BUDGET_MS",
    kind: wholeNumber("<ms>", 0),
    default: 20_000,
    section: "Upstream options",
    help: "no retry starts later than this into a call",
  },
  "upstream.maxResponseBytes": {
    flag: "upstream-max-bytes",
    env: "UPSTREAM_MAX_BYTES",
    kind: wholeNumber("<n>", 1),
    default: 10 * 1024 * 1024,
    section: "Upstream options",
    help: "largest upstream body accepted, in bytes",
  },
  "upstream.concurrency": {
    flag: "upstream-concurrency",
    env: "UPSTREAM_CONCURRENCY",
    kind: wholeNumber("<n>", 1),
    default: 8,
    section: "Upstream options",
    help: "upstream requests in flight per API key",
  },
  "http.host": {
    flag: "host",
    env: "MCP_HOST",
    kind: plainText("<address>"),
    default: "127.0.0.1",
    section: "HTTP options",
    help: "bind address",
  },
  "http.port": {
    flag: "port",
    env: "MCP_PORT",
    kind: wholeNumber("<number>", 0, 65535),
    default: 3000,
    section: "HTTP options",
    help: "port; 0 picks a free one",
  },
  "http.stateless": {
    flag: "stateless",
    env: "MCP_STATELESS",
    kind: onOff,
    default: false,
    section: "HTTP options",
    help: "no 2025 sessions: every request stands alone, for load balancers",
  },
  "http.sessionIdleMs": {
    flag: "session-idle-ms",
    env: "MCP_SESSION_IDLE_MS",
    kind: wholeNumber("<ms>", 1),
    default: 1_800_000,
    section: "HTTP options",
    help: "idle sessions expire after this",
  },
  "http.maxSessions": {
    flag: "max-sessions",
    env: "MCP_MAX_SESSIONS",
    kind: wholeNumber("<n>", 1),
    default: 1000,
    section: "HTTP options",
    help: "open sessions at most",
  },
  "http.maxSessionsPerKey": {
    flag: "max-sessions-per-key",
    env: "MCP_MAX_SESSIONS_PER_KEY",
    kind: wholeNumber("<n>", 1),
    // A tenth of the sessions, but never fewer than 10 (or all of them, on a server allowing fewer).
    default: new Derived("a tenth of --max-sessions, at least 10", ({ http: { maxSessions } }) =>
      Math.min(maxSessions, Math.max(10, Math.ceil(maxSessions / 10))),
    ),
    section: "HTTP options",
    help: "open sessions one API key may hold",
  },
  "http.allowedHosts": {
    flag: "allowed-hosts",
    env: "MCP_ALLOWED_HOSTS",
    kind: commaList,
    default: [],
    section: "HTTP options",
    help: "host names clients use, when binding beyond loopback",
  },
  "http.authToken": {
    flag: "auth-token-file",
    env: "MCP_AUTH_TOKEN",
    secret: true,
    kind: plainText("<path>"),
    default: undefined,
    section: "HTTP options",
    help: "bearer token every /mcp request must carry",
  },
  "http.allowUnauthenticated": {
    flag: "allow-unauthenticated",
    env: "MCP_ALLOW_UNAUTHENTICATED",
    kind: onOff,
    default: false,
    section: "HTTP options",
    help: "allow a bind beyond loopback without a token",
  },
  "http.corsOrigins": {
    flag: "cors-origin",
    env: "MCP_CORS_ORIGIN",
    kind: commaList,
    default: [],
    section: "HTTP options",
    help: "origins allowed by CORS",
  },
  "http.maxBodyBytes": {
    flag: "max-body-bytes",
    env: "MCP_MAX_BODY_BYTES",
    kind: wholeNumber("<n>", 1),
    default: 1024 * 1024,
    section: "HTTP options",
    help: "largest request body accepted, in bytes",
  },
  "http.headersTimeoutMs": {
    flag: "headers-timeout-ms",
    env: "MCP_HEADERS_TIMEOUT_MS",
    kind: wholeNumber("<ms>", 1),
    default: 10_000,
    section: "HTTP options",
    help: "a request's headers must arrive within this",
  },
  "http.requestTimeoutMs": {
    flag: "request-timeout-ms",
    env: "MCP_REQUEST_TIMEOUT_MS",
    kind: wholeNumber("<ms>", 1),
    default: 30_000,
    section: "HTTP options",
    help: "a whole request, body included, must arrive within this",
  },
  "http.redisUrl": {
    flag: "redis-url",
    env: "MCP_REDIS_URL",
    kind: redis,
    default: undefined,
    section: "HTTP options",
    help: "Redis URL replicas share sign-ins and confirmations through",
  },
  "http.keepAliveTimeoutMs": {
    flag: "keep-alive-timeout-ms",
    env: "MCP_KEEP_ALIVE_TIMEOUT_MS",
    kind: wholeNumber("<ms>", 1),
    default: 5_000,
    section: "HTTP options",
    help: "idle kept-alive connections are closed after this",
  },
  "telemetry.metricsPort": {
    flag: "metrics-port",
    env: "MCP_METRICS_PORT",
    kind: wholeNumber("<number>", 0, 65535),
    default: undefined,
    section: "Telemetry options",
    help: "serve Prometheus metrics at /metrics on its own port; 0 picks one",
  },
  "telemetry.metricsHost": {
    flag: "metrics-host",
    env: "MCP_METRICS_HOST",
    kind: plainText("<address>"),
    default: "127.0.0.1",
    section: "Telemetry options",
    help: "bind address of the metrics listener",
  },
  "telemetry.recordContent": {
    flag: "trace-content",
    env: "MCP_TRACE_CONTENT",
    kind: onOff,
    default: false,
    section: "Telemetry options",
    help: "record tool arguments and results on spans; API keys stay redacted",
  },
  "http.oauth": {
    flag: "oauth",
    env: "MCP_OAUTH",
    kind: onOff,
    default: false,
    section: "HTTP options",
    help: "sign-in by OAuth 2.1: clients ask each person for an API key once",
  },
  "http.oauthSecret": {
    flag: "oauth-secret-file",
    env: "MCP_OAUTH_SECRET",
    secret: true,
    kind: plainText("<path>"),
    default: undefined,
    section: "HTTP options",
    help: "secrets sealing sign-ins, comma-separated: the first seals, all open",
  },
  "http.publicUrl": {
    flag: "public-url",
    env: "MCP_PUBLIC_URL",
    kind: url,
    default: new Derived("http://<host>:<port>", () => undefined),
    section: "HTTP options",
    help: "the origin clients reach this server at, for sign-in",
  },
  "http.oauthAllowPrivateMetadata": {
    flag: "oauth-allow-private-metadata",
    env: "MCP_OAUTH_ALLOW_PRIVATE_METADATA",
    kind: onOff,
    default: false,
    section: "HTTP options",
    help: "fetch client metadata from private addresses, for tests only",
  },
};

/** One setting of the table, with the Config field it sets. */
export type Setting = SettingSpec<unknown> & { key: ConfigKey };

/** Every setting the server reads: the parser, --help, the README's table and server.json follow this list. */
export const SETTINGS: readonly Setting[] = Object.entries(TABLE).map(([key, spec]) => ({
  key: key as ConfigKey,
  ...(spec as SettingSpec<unknown>),
}));
