// Environment + flags -> one typed Config, validated once. SETTINGS lists every setting once: the flag
// parser and --help are made from it, and a test holds the README's tables to it. Missing credentials
// are not an error here (the server still starts and lists its tools); malformed values are.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

/** What the upstream clients need; per-user values (key, project, workspace) may override the environment's. */
export interface UpstreamSettings {
  workspaceBaseUrl?: string;
  analyticsBaseUrl?: string;
  workspaceApiKey?: string;
  /** Overrides workspaceApiKey for the analytics API. */
  analyticsApiKey?: string;
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

export class ConfigError extends Error {}

/** One setting: its flag and/or environment variable, and one line for --help. */
interface Setting {
  flag?: string;
  env?: string;
  /** What the flag takes, as --help shows it; none for an on/off flag. */
  arg?: string;
  section: "Options" | "HTTP options" | "Environment";
  help: string;
}

/** Every setting the server reads: the parser, --help and the README's tables follow this list. */
export const SETTINGS: readonly Setting[] = [
  {
    flag: "transport",
    arg: "<stdio|http>",
    section: "Options",
    help: "how clients connect (default: stdio)",
  },
  { flag: "demo", section: "Options", help: "serve against the built-in sandbox (no account needed)" },
  {
    flag: "toolsets",
    env: "MCP_TOOLSETS",
    arg: "<list>",
    section: "Options",
    help: "toolsets to serve: workspace,analytics (default: both)",
  },
  {
    flag: "tools",
    env: "MCP_TOOLS",
    arg: "<list>",
    section: "Options",
    help: "exact allow-list of tool names",
  },
  {
    flag: "read-only",
    env: "MCP_READ_ONLY",
    section: "Options",
    help: "hide tools that create data",
  },
  {
    flag: "upstream-timeout-ms",
    env: "UPSTREAM_TIMEOUT_MS",
    arg: "<ms>",
    section: "Options",
    help: "bound on each upstream call (default: 30000)",
  },
  {
    flag: "response-format",
    env: "MCP_RESPONSE_FORMAT",
    arg: "<form>",
    section: "Options",
    help: "concise or full: answers of calls that do not choose (default: concise)",
  },
  {
    flag: "max-result-tokens",
    env: "MCP_MAX_RESULT_TOKENS",
    arg: "<n>",
    section: "Options",
    help: "token budget of a concise answer; full ones get at least 20000 (default: 8000)",
  },
  { flag: "help", section: "Options", help: "show this help" },
  { flag: "version", section: "Options", help: "print the version" },
  { flag: "host", arg: "<address>", section: "HTTP options", help: "bind address (default: 127.0.0.1)" },
  {
    flag: "port",
    arg: "<number>",
    section: "HTTP options",
    help: "port (default: 3000; 0 picks a free one)",
  },
  {
    flag: "stateless",
    section: "HTTP options",
    help: "no 2025 sessions: every request stands alone (for load balancers)",
  },
  {
    flag: "session-idle-ms",
    arg: "<ms>",
    section: "HTTP options",
    help: "idle sessions expire after this (default: 1800000)",
  },
  {
    flag: "max-sessions",
    arg: "<n>",
    section: "HTTP options",
    help: "open sessions at most (default: 1000)",
  },
  {
    flag: "max-sessions-per-key",
    arg: "<n>",
    section: "HTTP options",
    help: "open sessions one API key may hold (default: a tenth of --max-sessions, at least 10)",
  },
  {
    flag: "allowed-hosts",
    arg: "<list>",
    section: "HTTP options",
    help: "host names clients use, when binding beyond loopback",
  },
  {
    flag: "auth-token-file",
    arg: "<path>",
    section: "HTTP options",
    help: "file holding the bearer token (or env MCP_AUTH_TOKEN)",
  },
  {
    flag: "allow-unauthenticated",
    section: "HTTP options",
    help: "allow a non-loopback bind without a token",
  },
  {
    flag: "max-body-bytes",
    arg: "<n>",
    section: "HTTP options",
    help: "request body limit (default: 1048576)",
  },
  {
    flag: "cors-origin",
    arg: "<list>",
    section: "HTTP options",
    help: "origins allowed by CORS (default: none)",
  },
  {
    flag: "shutdown-grace-ms",
    arg: "<ms>",
    section: "HTTP options",
    help: "time in-flight calls get on SIGTERM, stdio too (default: 10000)",
  },
  {
    flag: "headers-timeout-ms",
    arg: "<ms>",
    section: "HTTP options",
    help: "a request's headers must arrive within this (default: 10000)",
  },
  {
    flag: "request-timeout-ms",
    arg: "<ms>",
    section: "HTTP options",
    help: "a whole request, body included, must arrive within this (default: 30000)",
  },
  {
    flag: "keep-alive-timeout-ms",
    arg: "<ms>",
    section: "HTTP options",
    help: "idle kept-alive connections are closed after this (default: 5000)",
  },
  { env: "WORKSPACE_API_KEY", section: "Environment", help: "API key (X-API-KEY) for both APIs" },
  { env: "ANALYTICS_API_KEY", section: "Environment", help: "overrides the key for the analytics API" },
  { env: "WORKSPACE_BASE_URL", section: "Environment", help: "base URL of the agent-workspace API" },
  { env: "ANALYTICS_BASE_URL", section: "Environment", help: "base URL of the analytics API" },
  { env: "WORKSPACE_PROJECT_ID", section: "Environment", help: "default project of the workspace tools" },
  { env: "WORKSPACE_ID", section: "Environment", help: "default workspace (X-Workspace-Id)" },
  { env: "ANALYTICS_PROJECT_ID", section: "Environment", help: "default project of the geo_ tools" },
  {
    env: "UPSTREAM_RETRY_BUDGET_MS",
    section: "Environment",
    help: "no retry starts later than this into a call (default: 20000)",
  },
  {
    env: "UPSTREAM_MAX_BYTES",
    section: "Environment",
    help: "largest upstream body accepted (default: 10485760)",
  },
  {
    env: "UPSTREAM_CONCURRENCY",
    section: "Environment",
    help: "upstream requests in flight per API key (default: 8)",
  },
  { env: "MCP_AUTH_TOKEN", section: "Environment", help: "bearer token required on /mcp" },
  { env: "LOG_LEVEL", section: "Environment", help: "debug, info, notice, warning or error (default: info)" },
];

const HELP_COLUMN = 32;

/** One --help line: the flag (or variable), padded, and its description with the variable it reads. */
function helpLine({ flag, env, arg, help }: Setting): string {
  const name = flag ? `--${flag}${arg ? ` ${arg}` : ""}` : (env as string);
  const withEnv = help.endsWith(")") ? `${help.slice(0, -1)}; env ${env})` : `${help} (env ${env})`;
  const text = flag && env ? withEnv : help;
  return `  ${name.padEnd(HELP_COLUMN - 3)} ${text}`;
}

export const USAGE = `Usage: agent-workspace-mcp [options]

MCP server for the agent-workspace and visibility-analytics (GEO) APIs.
${(["Options", "HTTP options", "Environment"] as const)
  .map(
    (section) =>
      `\n${section}:\n${SETTINGS.filter((s) => s.section === section)
        .map(helpLine)
        .join("\n")}\n`,
  )
  .join("")}`;

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const LOG_LEVELS: readonly LogLevel[] = ["debug", "info", "notice", "warning", "error"];

type Env = NodeJS.ProcessEnv;

function optionalEnv(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

function guidEnv(env: Env, name: string): string | undefined {
  const value = optionalEnv(env, name);
  if (value !== undefined && !GUID.test(value))
    throw new ConfigError(`${name} must be a uuid, got "${value}"`);
  return value;
}

function urlEnv(env: Env, name: string): string | undefined {
  const value = optionalEnv(env, name);
  if (value === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw new ConfigError(`${name} must be an http(s) URL, got "${value}"`);
  }
  return value.replace(/\/+$/, "");
}

/** A whole number within [min, max]; `name` is what the message calls it (a flag or a variable). */
function integer(name: string, value: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const number = Number(value);
  if (!/^\d+$/.test(value.trim()) || number < min || number > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${value}"`);
  }
  return number;
}

/** A flag wins over its variable, which wins over the default. */
function integerSetting(
  flag: string | undefined,
  flagName: string,
  env: Env,
  envName: string | undefined,
  fallback: number,
  min: number,
  max?: number,
): number {
  if (flag !== undefined) return integer(flagName, flag, min, max);
  const fromEnv = envName ? optionalEnv(env, envName) : undefined;
  return fromEnv !== undefined ? integer(envName!, fromEnv, min, max) : fallback;
}

/** A comma-separated list, items trimmed, blanks dropped ("" is the empty list). */
export function list(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return value
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);
}

/** An on/off value: 1/true/yes/on or 0/false/no/off; anything else is undefined (malformed). */
export function parseSwitch(value: string): boolean | undefined {
  const word = value.trim().toLowerCase();
  if (["1", "true", "yes", "on"].includes(word)) return true;
  if (["0", "false", "no", "off", ""].includes(word)) return false;
  return undefined;
}

function switchEnv(env: Env, name: string): boolean {
  const value = env[name];
  if (value === undefined) return false;
  const on = parseSwitch(value);
  if (on === undefined)
    throw new ConfigError(`${name} must be 1/true/yes/on or 0/false/no/off, got "${value}"`);
  return on;
}

function readAuthToken(flagPath: string | undefined, env: Env): string | undefined {
  if (flagPath === undefined) return optionalEnv(env, "MCP_AUTH_TOKEN");
  let token: string;
  try {
    token = readFileSync(flagPath, "utf8").trim();
  } catch (error) {
    throw new ConfigError(
      `--auth-token-file: cannot read "${flagPath}" (${(error as NodeJS.ErrnoException).code})`,
    );
  }
  if (!token) throw new ConfigError(`--auth-token-file: "${flagPath}" is empty`);
  return token;
}

const SHORT: Record<string, string> = { help: "h", version: "v" };

/** node's parseArgs options, from the table: a flag without an argument is on/off, any other a string. */
const FLAG_OPTIONS = Object.fromEntries(
  SETTINGS.flatMap(({ flag, arg }) => {
    if (!flag) return [];
    const short = SHORT[flag] ? { short: SHORT[flag] } : {};
    return [
      [flag, arg ? { type: "string" as const } : { type: "boolean" as const, default: false, ...short }],
    ];
  }),
);

function parseFlags(argv: string[]) {
  return parseArgs({ args: argv, strict: true, allowPositionals: false, options: FLAG_OPTIONS })
    .values as Record<string, string | boolean | undefined>;
}

/** The values of the flags given, read by name. */
class Flags {
  constructor(private readonly values: Record<string, string | boolean | undefined>) {}

  text(flag: string): string | undefined {
    const value = this.values[flag];
    return typeof value === "string" ? value : undefined;
  }

  on(flag: string): boolean {
    return this.values[flag] === true;
  }

  /** A whole number from the flag, else from its variable (if it has one), else the default. */
  integer(flag: string, env: Env, fallback: number, min: number, max?: number): number {
    const variable = SETTINGS.find((setting) => setting.flag === flag)?.env;
    return integerSetting(this.text(flag), `--${flag}`, env, variable, fallback, min, max);
  }
}

/** The socket timeouts and the per-key session bound, checked against each other as node requires. */
function clientBounds(flags: Flags, maxSessions: number) {
  const headersTimeoutMs = flags.integer("headers-timeout-ms", {}, 10_000, 1);
  const requestTimeoutMs = flags.integer("request-timeout-ms", {}, 30_000, 1);
  if (headersTimeoutMs > requestTimeoutMs) {
    throw new ConfigError(
      `--headers-timeout-ms (${headersTimeoutMs}) must not exceed --request-timeout-ms (${requestTimeoutMs})`,
    );
  }
  return {
    headersTimeoutMs,
    requestTimeoutMs,
    keepAliveTimeoutMs: flags.integer("keep-alive-timeout-ms", {}, 5_000, 1),
    // A tenth of the sessions, but never fewer than 10 (or all of them, on a server allowing fewer).
    maxSessionsPerKey: flags.integer(
      "max-sessions-per-key",
      {},
      Math.min(maxSessions, Math.max(10, Math.ceil(maxSessions / 10))),
      1,
    ),
  };
}

/** The form and token budget of answers: a flag wins over its variable, which wins over the default. */
function answerSettings(
  flags: Flags,
  env: Env,
): Pick<UpstreamSettings, "responseFormat" | "maxResultTokens"> {
  const flag = flags.text("response-format");
  const format = (flag ?? optionalEnv(env, "MCP_RESPONSE_FORMAT") ?? "concise").trim().toLowerCase();
  if (format !== "concise" && format !== "full") {
    const source = flag === undefined ? "MCP_RESPONSE_FORMAT" : "--response-format";
    throw new ConfigError(`${source} must be concise or full, got "${flag ?? env.MCP_RESPONSE_FORMAT}"`);
  }
  return {
    responseFormat: format,
    maxResultTokens: flags.integer("max-result-tokens", env, 8000, 500, 1_000_000),
  };
}

export function parseCommandLine(argv: string[], env: Env): CliCommand {
  let flags: Flags;
  try {
    flags = new Flags(parseFlags(argv));
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  if (flags.on("help")) return { kind: "help" };
  if (flags.on("version")) return { kind: "version" };
  const transport = flags.text("transport") ?? "stdio";
  if (transport !== "stdio" && transport !== "http") {
    throw new ConfigError(`--transport must be stdio or http, got "${transport}"`);
  }
  const logLevel = (optionalEnv(env, "LOG_LEVEL")?.toLowerCase() ?? "info") as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}, got "${env.LOG_LEVEL}"`);
  }
  const maxSessions = flags.integer("max-sessions", env, 1000, 1);
  return {
    kind: "serve",
    config: {
      transport,
      demo: flags.on("demo"),
      logLevel,
      http: {
        host: flags.text("host") ?? "127.0.0.1",
        port: integer("--port", flags.text("port") ?? "3000", 0, 65535),
        stateless: flags.on("stateless"),
        sessionIdleMs: flags.integer("session-idle-ms", env, 1_800_000, 1),
        maxSessions,
        allowedHosts: list(flags.text("allowed-hosts")) ?? [],
        authToken: readAuthToken(flags.text("auth-token-file"), env),
        allowUnauthenticated: flags.on("allow-unauthenticated"),
        maxBodyBytes: flags.integer("max-body-bytes", env, 1024 * 1024, 1),
        corsOrigins: list(flags.text("cors-origin")) ?? [],
        shutdownGraceMs: flags.integer("shutdown-grace-ms", env, 10_000, 0),
        ...clientBounds(flags, maxSessions),
      },
      upstream: {
        workspaceBaseUrl: urlEnv(env, "WORKSPACE_BASE_URL"),
        analyticsBaseUrl: urlEnv(env, "ANALYTICS_BASE_URL"),
        workspaceApiKey: optionalEnv(env, "WORKSPACE_API_KEY"),
        analyticsApiKey: optionalEnv(env, "ANALYTICS_API_KEY"),
        workspaceProjectId: guidEnv(env, "WORKSPACE_PROJECT_ID"),
        workspaceId: guidEnv(env, "WORKSPACE_ID"),
        analyticsProjectId: guidEnv(env, "ANALYTICS_PROJECT_ID"),
        timeoutMs: flags.integer("upstream-timeout-ms", env, 30_000, 1),
        retryBudgetMs: integerSetting(undefined, "", env, "UPSTREAM_RETRY_BUDGET_MS", 20_000, 0),
        maxResponseBytes: integerSetting(undefined, "", env, "UPSTREAM_MAX_BYTES", 10 * 1024 * 1024, 1),
        concurrency: integerSetting(undefined, "", env, "UPSTREAM_CONCURRENCY", 8, 1),
        ...answerSettings(flags, env),
      },
      tools: {
        toolsets: list(flags.text("toolsets") ?? optionalEnv(env, "MCP_TOOLSETS")),
        tools: list(flags.text("tools") ?? optionalEnv(env, "MCP_TOOLS")),
        readOnly: flags.on("read-only") || switchEnv(env, "MCP_READ_ONLY"),
      },
    },
  };
}
