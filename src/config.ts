// Environment + flags -> one typed Config, validated once. Missing credentials are not an error here
// (the server still starts and lists its tools); malformed values are, so a typo never goes unnoticed.
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

export const USAGE = `Usage: agent-workspace-mcp [options]

MCP server for the agent-workspace and visibility-analytics (GEO) APIs.

Options:
  --transport <stdio|http>      how clients connect (default: stdio)
  --demo                        serve against the built-in sandbox (no account needed)
  --toolsets <list>             toolsets to serve: workspace,analytics (default: both; env MCP_TOOLSETS)
  --tools <list>                exact allow-list of tool names (env MCP_TOOLS)
  --read-only                   hide tools that create data (env MCP_READ_ONLY=1)
  --upstream-timeout-ms <ms>    bound on each upstream call (default: 30000; env UPSTREAM_TIMEOUT_MS)
  --response-format <form>      concise or full: answers of calls that do not choose (default: concise;
                                env MCP_RESPONSE_FORMAT)
  --max-result-tokens <n>       token budget of a concise answer; full ones get at least 20000
                                (default: 8000; env MCP_MAX_RESULT_TOKENS)
  --help                        show this help
  --version                     print the version

HTTP options:
  --host <address>              bind address (default: 127.0.0.1)
  --port <number>               port (default: 3000; 0 picks a free one)
  --stateless                   no sessions: every request stands alone (for load balancers)
  --session-idle-ms <ms>        idle sessions expire after this (default: 1800000)
  --max-sessions <n>            open sessions at most (default: 1000)
  --allowed-hosts <list>        host names clients use, when binding beyond loopback
  --auth-token-file <path>      file holding the bearer token (or env MCP_AUTH_TOKEN)
  --allow-unauthenticated       allow a non-loopback bind without a token
  --max-body-bytes <n>          request body limit (default: 1048576)
  --cors-origin <list>          origins allowed by CORS (default: none)
  --shutdown-grace-ms <ms>      time in-flight calls get on SIGTERM (default: 10000)

Environment:
  WORKSPACE_API_KEY             API key (X-API-KEY) for both APIs
  ANALYTICS_API_KEY             overrides the key for the analytics API
  WORKSPACE_BASE_URL            base URL of the agent-workspace API
  ANALYTICS_BASE_URL            base URL of the analytics API
  WORKSPACE_PROJECT_ID          default project of the workspace tools
  WORKSPACE_ID                  default workspace (X-Workspace-Id)
  ANALYTICS_PROJECT_ID          default project of the geo_ tools
  UPSTREAM_RETRY_BUDGET_MS      no retry starts later than this into a call (default: 20000)
  UPSTREAM_MAX_BYTES            largest upstream body accepted (default: 10485760)
  UPSTREAM_CONCURRENCY          upstream requests in flight per API key (default: 8)
  MCP_AUTH_TOKEN                bearer token required on /mcp
  LOG_LEVEL                     debug, info, notice, warning or error (default: info)
`;

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

function parseFlags(argv: string[]) {
  const string = { type: "string" } as const;
  const boolean = { type: "boolean", default: false } as const;
  return parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      transport: { type: "string", default: "stdio" },
      host: { type: "string", default: "127.0.0.1" },
      port: { type: "string", default: "3000" },
      demo: boolean,
      help: { ...boolean, short: "h" },
      version: { ...boolean, short: "v" },
      toolsets: string,
      tools: string,
      "read-only": boolean,
      "upstream-timeout-ms": string,
      "response-format": string,
      "max-result-tokens": string,
      stateless: boolean,
      "session-idle-ms": string,
      "max-sessions": string,
      "allowed-hosts": string,
      "auth-token-file": string,
      "allow-unauthenticated": boolean,
      "max-body-bytes": string,
      "cors-origin": string,
      "shutdown-grace-ms": string,
    },
  });
}

// ---------------------------------------------------------------- answers (issue 13)
/** The form and token budget of answers: a flag wins over its variable, which wins over the default. */
function answerSettings(
  values: { "response-format"?: string; "max-result-tokens"?: string },
  env: Env,
): Pick<UpstreamSettings, "responseFormat" | "maxResultTokens"> {
  const flag = values["response-format"];
  const format = (flag ?? optionalEnv(env, "MCP_RESPONSE_FORMAT") ?? "concise").trim().toLowerCase();
  if (format !== "concise" && format !== "full") {
    const source = flag === undefined ? "MCP_RESPONSE_FORMAT" : "--response-format";
    throw new ConfigError(`${source} must be concise or full, got "${flag ?? env.MCP_RESPONSE_FORMAT}"`);
  }
  return {
    responseFormat: format,
    maxResultTokens: integerSetting(
      values["max-result-tokens"],
      "--max-result-tokens",
      env,
      "MCP_MAX_RESULT_TOKENS",
      8000,
      500,
      1_000_000,
    ),
  };
}
// ---------------------------------------------------------------- end of answers

export function parseCommandLine(argv: string[], env: Env): CliCommand {
  let values: ReturnType<typeof parseFlags>["values"];
  try {
    values = parseFlags(argv).values;
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  if (values.help) return { kind: "help" };
  if (values.version) return { kind: "version" };
  const transport = values.transport;
  if (transport !== "stdio" && transport !== "http") {
    throw new ConfigError(`--transport must be stdio or http, got "${transport}"`);
  }
  const logLevel = (optionalEnv(env, "LOG_LEVEL")?.toLowerCase() ?? "info") as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}, got "${env.LOG_LEVEL}"`);
  }
  return {
    kind: "serve",
    config: {
      transport,
      demo: values.demo,
      logLevel,
      http: {
        host: values.host,
        port: integer("--port", values.port, 0, 65535),
        stateless: values.stateless,
        sessionIdleMs: integerSetting(
          values["session-idle-ms"],
          "--session-idle-ms",
          env,
          undefined,
          1_800_000,
          1,
        ),
        maxSessions: integerSetting(values["max-sessions"], "--max-sessions", env, undefined, 1000, 1),
        allowedHosts: list(values["allowed-hosts"]) ?? [],
        authToken: readAuthToken(values["auth-token-file"], env),
        allowUnauthenticated: values["allow-unauthenticated"],
        maxBodyBytes: integerSetting(
          values["max-body-bytes"],
          "--max-body-bytes",
          env,
          undefined,
          1024 * 1024,
          1,
        ),
        corsOrigins: list(values["cors-origin"]) ?? [],
        shutdownGraceMs: integerSetting(
          values["shutdown-grace-ms"],
          "--shutdown-grace-ms",
          env,
          undefined,
          10_000,
          0,
        ),
      },
      upstream: {
        workspaceBaseUrl: urlEnv(env, "WORKSPACE_BASE_URL"),
        analyticsBaseUrl: urlEnv(env, "ANALYTICS_BASE_URL"),
        workspaceApiKey: optionalEnv(env, "WORKSPACE_API_KEY"),
        analyticsApiKey: optionalEnv(env, "ANALYTICS_API_KEY"),
        workspaceProjectId: guidEnv(env, "WORKSPACE_PROJECT_ID"),
        workspaceId: guidEnv(env, "WORKSPACE_ID"),
        analyticsProjectId: guidEnv(env, "ANALYTICS_PROJECT_ID"),
        timeoutMs: integerSetting(
          values["upstream-timeout-ms"],
          "--upstream-timeout-ms",
          env,
          "UPSTREAM_TIMEOUT_MS",
          30_000,
          1,
        ),
        retryBudgetMs: integerSetting(undefined, "", env, "UPSTREAM_RETRY_BUDGET_MS", 20_000, 0),
        maxResponseBytes: integerSetting(undefined, "", env, "UPSTREAM_MAX_BYTES", 10 * 1024 * 1024, 1),
        concurrency: integerSetting(undefined, "", env, "UPSTREAM_CONCURRENCY", 8, 1),
        ...answerSettings(values, env),
      },
      tools: {
        toolsets: list(values.toolsets ?? optionalEnv(env, "MCP_TOOLSETS")),
        tools: list(values.tools ?? optionalEnv(env, "MCP_TOOLS")),
        readOnly: values["read-only"] || switchEnv(env, "MCP_READ_ONLY"),
      },
    },
  };
}
