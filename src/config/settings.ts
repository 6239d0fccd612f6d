// Environment + flags -> one typed Config, validated once. SETTINGS lists every setting once, keyed by
// where its value lands in Config: the parser walks it, --help prints it, and tests hold the README's
// table and server.json to it. Missing credentials are not an error here (the server still starts and
// lists its tools); malformed values are.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

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

export type LogLevel = "debug" | "info" | "notice" | "warning" | "error";

export interface Config {
  transport: "stdio" | "http";
  demo: boolean;
  logLevel: LogLevel;
  http: HttpSettings;
  upstream: UpstreamSettings;
  tools: ToolSelection;
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

/** How a setting's text becomes its value; parse gives undefined for a text that breaks `rule`. */
export type Kind<T> = {
  /** What the flag takes, as --help shows it; none for an on/off flag. */
  arg?: string;
  /** Ends the message for a malformed value: `<flag or variable> <rule>, got "<text>"`. */
  rule: string;
  parse(text: string): T | undefined;
} & (
  | { name: "integer"; min: number; max: number }
  | { name: "choice"; words: readonly string[] }
  | { name: "switch" | "list" | "url" | "uuid" | "text" }
);

/** A whole number within [min, max]. */
function wholeNumber(arg: string, min: number, max = Number.MAX_SAFE_INTEGER): Kind<number> {
  return {
    name: "integer",
    min,
    max,
    arg,
    rule: `must be a whole number from ${min} to ${max}`,
    parse: (text) =>
      /^\d+$/.test(text) && Number(text) >= min && Number(text) <= max ? Number(text) : undefined,
  };
}

/** One of a few words, in any case. */
function oneOf<const W extends string>(words: readonly W[], arg = `<${words.join("|")}>`): Kind<W> {
  const listed = words.length === 2 ? words.join(" or ") : `one of ${words.join(", ")}`;
  return {
    name: "choice",
    words,
    arg,
    rule: `must be ${listed}`,
    parse: (text) => words.find((word) => word === text.toLowerCase()),
  };
}

/** An on/off value: 1/true/yes/on or 0/false/no/off; anything else is undefined (malformed). */
export function parseSwitch(value: string): boolean | undefined {
  const word = value.trim().toLowerCase();
  if (["1", "true", "yes", "on"].includes(word)) return true;
  if (["0", "false", "no", "off", ""].includes(word)) return false;
  return undefined;
}

/** A comma-separated list, items trimmed, blanks dropped ("" is the empty list). */
export function list(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return value
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);
}

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An http(s) URL, kept as written but for trailing slashes. */
function httpUrl(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  return url.protocol === "http:" || url.protocol === "https:" ? text.replace(/\/+$/, "") : undefined;
}

const onOff: Kind<boolean> = {
  name: "switch",
  rule: "must be 1/true/yes/on or 0/false/no/off",
  parse: parseSwitch,
};
// A list is never malformed; a text only when a flag gives it empty.
const commaList: Kind<string[]> = { name: "list", arg: "<list>", rule: "must be a list", parse: list };
const url: Kind<string> = { name: "url", arg: "<url>", rule: "must be an http(s) URL", parse: httpUrl };
const uuid: Kind<string> = {
  name: "uuid",
  arg: "<uuid>",
  rule: "must be a uuid",
  parse: (text) => (GUID.test(text) ? text : undefined),
};
const plainText = (arg: string): Kind<string> => ({
  name: "text",
  arg,
  rule: "must not be empty",
  parse: (value) => value || undefined,
});

/** A default worked out from the rest of the configuration, with the words --help shows for it. */
class Derived<T> {
  constructor(
    readonly text: string,
    readonly value: (config: Config) => T,
  ) {}
}

type Section = "Options" | "Upstream options" | "HTTP options";

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

/** Where a value lands in Config: a top-level field, or "group.field". */
export type ConfigKey =
  | "transport"
  | "demo"
  | "logLevel"
  | `http.${keyof HttpSettings}`
  | `upstream.${Exclude<keyof UpstreamSettings, "apiKeySource">}`
  | `tools.${keyof ToolSelection}`;

type ValueAt<K extends ConfigKey> = K extends `${infer G extends "http" | "upstream" | "tools"}.${infer F}`
  ? Config[G][F & keyof Config[G]]
  : Config[K & keyof Config];

/** Every setting, one per field of Config, in --help's order; the compiler holds each kind to its field's type. */
const TABLE: { [K in ConfigKey]: SettingSpec<ValueAt<K>> } = {
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
  "http.keepAliveTimeoutMs": {
    flag: "keep-alive-timeout-ms",
    env: "MCP_KEEP_ALIVE_TIMEOUT_MS",
    kind: wholeNumber("<ms>", 1),
    default: 5_000,
    section: "HTTP options",
    help: "idle kept-alive connections are closed after this",
  },
};

/** One setting of the table, with the Config field it sets. */
export type Setting = SettingSpec<unknown> & { key: ConfigKey };

/** Every setting the server reads: the parser, --help, the README's table and server.json follow this list. */
export const SETTINGS: readonly Setting[] = Object.entries(TABLE).map(([key, spec]) => ({
  key: key as ConfigKey,
  ...(spec as SettingSpec<unknown>),
}));

/** The default as --help and the README show it; undefined when there is none. */
export function defaultText({ default: value }: Setting): string | undefined {
  if (value instanceof Derived) return value.text;
  if (value === undefined) return undefined;
  if (typeof value === "boolean") return value ? "on" : "off";
  if (Array.isArray(value)) return value.length ? value.join(",") : "none";
  return String(value);
}

const helpLine = (name: string, text: string) => `  ${name.padEnd(31)} ${text}`;

/** A setting's --help line: its flag (a secret without one: its variable), its line, default and variable. */
function settingLine(setting: Setting): string {
  const { flag, env, kind, secret, help } = setting;
  const name = flag ? `--${flag}${kind.name === "switch" ? "" : ` ${kind.arg}`}` : env;
  const shown = defaultText(setting);
  const notes = [
    ...(shown === undefined ? [] : [`default: ${shown}`]),
    secret ? (flag ? `secret: the file holding it, or env ${env}` : "secret: env only") : `env ${env}`,
  ];
  return helpLine(name, `${help} (${notes.join("; ")})`);
}

/** The --help lines of the settings a ConfigError concerns, to print with its message. */
export function helpLinesOf(error: ConfigError): string[] {
  return error.settings.flatMap((key) => SETTINGS.filter((setting) => setting.key === key).map(settingLine));
}

const SECTIONS: readonly Section[] = ["Options", "Upstream options", "HTTP options"];

export const USAGE = `Usage: agent-workspace-mcp [options]

MCP server for the agent-workspace and visibility-analytics (GEO) APIs. Each option is a flag and an
environment variable (env); the flag wins. Secrets have no flag (its value would show in the process
list): they come from the environment, or a file.

${helpLine("-h, --help", "show this help")}
${helpLine("-v, --version", "print the version")}
${SECTIONS.map(
  (section) =>
    `\n${section}:\n${SETTINGS.filter((s) => s.section === section)
      .map(settingLine)
      .join("\n")}\n`,
).join("")}`;

type Env = NodeJS.ProcessEnv;
type FlagValues = Record<string, string | boolean | undefined>;

/** Commands, not settings: they answer before any setting is read. */
const COMMANDS = { help: { type: "boolean", short: "h" }, version: { type: "boolean", short: "v" } } as const;

/** node's parseArgs options, from the table: an on/off setting's flag takes no argument, any other one. */
const FLAG_OPTIONS = {
  ...COMMANDS,
  ...Object.fromEntries(
    SETTINGS.flatMap(({ flag, kind }) =>
      flag ? [[flag, { type: kind.name === "switch" ? ("boolean" as const) : ("string" as const) }]] : [],
    ),
  ),
};

function parseFlags(argv: string[]): FlagValues {
  try {
    return parseArgs({ args: argv, strict: true, allowPositionals: false, options: FLAG_OPTIONS }).values;
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
}

/** The contents of the file a secret's flag names. */
function readSecretFile(setting: Setting, source: string, path: string): string {
  let contents: string;
  try {
    contents = readFileSync(path, "utf8").trim();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError(`${source}: cannot read "${path}" (${code})`, [setting.key]);
  }
  if (!contents) throw new ConfigError(`${source}: "${path}" is empty`, [setting.key]);
  return contents;
}

/** A setting's value and where it came from: its flag, else its variable (empty is unset), else its default. */
function readSetting(setting: Setting, flags: FlagValues, env: Env): { value: unknown; source?: string } {
  const given = setting.flag === undefined ? undefined : flags[setting.flag];
  const source = given === undefined ? setting.env : `--${setting.flag}`;
  let text: string | undefined;
  if (given === true) text = "on";
  else if (typeof given === "string")
    text = setting.secret ? readSecretFile(setting, source, given) : given.trim();
  else text = env[setting.env]?.trim() || undefined;
  if (text === undefined) return { value: setting.default };
  const value = setting.kind.parse(text);
  if (value === undefined) {
    throw new ConfigError(`${source} ${setting.kind.rule}, got "${text}"`, [setting.key]);
  }
  return { value, source };
}

/** Sets `key` ("field" or "group.field") of the configuration being built. */
function assign(config: Record<string, unknown>, key: ConfigKey, value: unknown): void {
  const [group, field] = key.split(".") as [string, string | undefined];
  if (field === undefined) config[group] = value;
  else (config[group] as Record<string, unknown>)[field] = value;
}

/** Walks the table: every setting read, then the defaults derived from the others, then the cross-checks. */
function readConfig(flags: FlagValues, env: Env): Config {
  const built: Record<string, unknown> = { http: {}, upstream: {}, tools: {} };
  const config = built as unknown as Config;
  const sources = new Map<ConfigKey, string>();
  const derived: [ConfigKey, Derived<unknown>][] = [];
  for (const setting of SETTINGS) {
    const { value, source } = readSetting(setting, flags, env);
    if (source) sources.set(setting.key, source);
    if (value instanceof Derived) derived.push([setting.key, value]);
    else assign(built, setting.key, value);
  }
  for (const [key, value] of derived) assign(built, key, value.value(config));
  // node requires it of its server; the message names where each value came from (a default: its flag).
  const named = (key: ConfigKey) => sources.get(key) ?? `--${TABLE[key].flag}`;
  const { headersTimeoutMs, requestTimeoutMs } = config.http;
  if (headersTimeoutMs > requestTimeoutMs) {
    throw new ConfigError(
      `${named("http.headersTimeoutMs")} (${headersTimeoutMs}) must not exceed ${named("http.requestTimeoutMs")} (${requestTimeoutMs})`,
      ["http.headersTimeoutMs", "http.requestTimeoutMs"],
    );
  }
  return config;
}

export function parseCommandLine(argv: string[], env: Env): CliCommand {
  const flags = parseFlags(argv);
  if (flags.help) return { kind: "help" };
  if (flags.version) return { kind: "version" };
  return { kind: "serve", config: readConfig(flags, env) };
}
