// Environment + flags -> one typed Config, validated once. Missing credentials are not an error here
// (the server still starts and lists its tools); malformed values are, so a typo never goes unnoticed.
import { parseArgs } from "node:util";

/** What the upstream clients need; per-user values may override the environment's. */
export interface UpstreamSettings {
  workspaceBaseUrl?: string;
  analyticsBaseUrl?: string;
  workspaceApiKey?: string;
  /** Overrides workspaceApiKey for the analytics API. */
  analyticsApiKey?: string;
  workspaceProjectId?: string;
  workspaceId?: string;
  analyticsProjectId?: string;
  timeoutMs: number;
}

export interface Config {
  transport: "stdio" | "http";
  host: string;
  port: number;
  demo: boolean;
  upstream: UpstreamSettings;
}

export type CliCommand = { kind: "help" } | { kind: "version" } | { kind: "serve"; config: Config };

export class ConfigError extends Error {}

export const USAGE = `Usage: agent-workspace-mcp [options]

MCP server for the agent-workspace and visibility-analytics (GEO) APIs.

Options:
  --transport <stdio|http>  how clients connect (default: stdio)
  --host <address>          HTTP bind address (default: 127.0.0.1)
  --port <number>           HTTP port (default: 3000; 0 picks a free one)
  --demo                    serve against the built-in sandbox (no account needed)
  --help                    show this help
  --version                 print the version

Environment:
  WORKSPACE_API_KEY         API key (X-API-KEY) for both APIs
  ANALYTICS_API_KEY         overrides the key for the analytics API
  WORKSPACE_BASE_URL        base URL of the agent-workspace API
  ANALYTICS_BASE_URL        base URL of the analytics API
  WORKSPACE_PROJECT_ID      default project of the workspace tools
  WORKSPACE_ID              default workspace (X-Workspace-Id)
  ANALYTICS_PROJECT_ID      default project of the geo_ tools
`;

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DEFAULT_TIMEOUT_MS = 30_000;

function optionalEnv(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

function guidEnv(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = optionalEnv(env, name);
  if (value !== undefined && !GUID.test(value))
    throw new ConfigError(`${name} must be a uuid, got "${value}"`);
  return value;
}

function urlEnv(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = optionalEnv(env, name);
  if (value === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`${name} must be an http(s) URL, got "${value}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ConfigError(`${name} must be an http(s) URL, got "${value}"`);
  }
  return value.replace(/\/+$/, "");
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw new ConfigError(`--port must be 0-65535, got "${value}"`);
  return port;
}

export function parseCommandLine(argv: string[], env: NodeJS.ProcessEnv): CliCommand {
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
  return {
    kind: "serve",
    config: {
      transport,
      host: values.host,
      port: parsePort(values.port),
      demo: values.demo,
      upstream: {
        workspaceBaseUrl: urlEnv(env, "WORKSPACE_BASE_URL"),
        analyticsBaseUrl: urlEnv(env, "ANALYTICS_BASE_URL"),
        workspaceApiKey: optionalEnv(env, "WORKSPACE_API_KEY"),
        analyticsApiKey: optionalEnv(env, "ANALYTICS_API_KEY"),
        workspaceProjectId: guidEnv(env, "WORKSPACE_PROJECT_ID"),
        workspaceId: guidEnv(env, "WORKSPACE_ID"),
        analyticsProjectId: guidEnv(env, "ANALYTICS_PROJECT_ID"),
        timeoutMs: DEFAULT_TIMEOUT_MS,
      },
    },
  };
}

function parseFlags(argv: string[]) {
  return parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      transport: { type: "string", default: "stdio" },
      host: { type: "string", default: "127.0.0.1" },
      port: { type: "string", default: "3000" },
      demo: { type: "boolean", default: false },
      help: { type: "boolean", default: false, short: "h" },
      version: { type: "boolean", default: false, short: "v" },
    },
  });
}
