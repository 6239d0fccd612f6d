// Flags and environment -> Config: defaults, precedence, and a clear error for every malformed value.
import { describe, expect, it } from "vitest";
import { ConfigError, parseCommandLine } from "../src/config.js";

const serve = (argv: string[], env: NodeJS.ProcessEnv = {}) => {
  const command = parseCommandLine(argv, env);
  if (command.kind !== "serve") throw new Error(`expected serve, got ${command.kind}`);
  return command.config;
};

const PROJECT = "11111111-1111-4111-8111-111111111111";

describe("configuration", () => {
  it("defaults to stdio on 127.0.0.1:3000 with every limit at its documented default", () => {
    const config = serve([]);
    expect(config.transport).toBe("stdio");
    expect(config.demo).toBe(false);
    expect(config.logLevel).toBe("info");
    expect(config.http).toEqual({
      host: "127.0.0.1",
      port: 3000,
      stateless: false,
      sessionIdleMs: 1_800_000,
      maxSessions: 1000,
      allowedHosts: [],
      authToken: undefined,
      allowUnauthenticated: false,
      maxBodyBytes: 1_048_576,
      corsOrigins: [],
      shutdownGraceMs: 10_000,
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5_000,
      maxSessionsPerKey: 100,
    });
    expect(config.upstream).toEqual({
      timeoutMs: 30_000,
      retryBudgetMs: 20_000,
      maxResponseBytes: 10_485_760,
      concurrency: 8,
      responseFormat: "concise",
      maxResultTokens: 8000,
    });
    expect(config.tools).toEqual({ toolsets: undefined, tools: undefined, readOnly: false });
  });

  it("reads the environment, trimming base URLs of their trailing slash", () => {
    const config = serve([], {
      WORKSPACE_API_KEY: " key ",
      ANALYTICS_API_KEY: "akey",
      WORKSPACE_BASE_URL: "https://api.example/",
      ANALYTICS_BASE_URL: "https://analytics.example/base//",
      WORKSPACE_PROJECT_ID: PROJECT,
      WORKSPACE_ID: PROJECT,
      ANALYTICS_PROJECT_ID: PROJECT,
      UPSTREAM_TIMEOUT_MS: "1500",
      MCP_TOOLSETS: "workspace",
      MCP_READ_ONLY: "1",
    });
    expect(config.upstream).toMatchObject({
      workspaceApiKey: "key",
      analyticsApiKey: "akey",
      workspaceBaseUrl: "https://api.example",
      analyticsBaseUrl: "https://analytics.example/base",
      workspaceProjectId: PROJECT,
      workspaceId: PROJECT,
      analyticsProjectId: PROJECT,
      timeoutMs: 1500,
    });
    expect(config.tools).toEqual({ toolsets: ["workspace"], tools: undefined, readOnly: true });
  });

  it("lets a flag win over its variable", () => {
    const config = serve(["--upstream-timeout-ms", "900", "--toolsets", "analytics"], {
      UPSTREAM_TIMEOUT_MS: "1500",
      MCP_TOOLSETS: "workspace",
    });
    expect(config.upstream.timeoutMs).toBe(900);
    expect(config.tools.toolsets).toEqual(["analytics"]);
  });

  it("reads the answer form and budget from MCP_RESPONSE_FORMAT and MCP_MAX_RESULT_TOKENS; flags win", () => {
    const env = { MCP_RESPONSE_FORMAT: "FULL", MCP_MAX_RESULT_TOKENS: "12000" };
    expect(serve([], env).upstream).toMatchObject({ responseFormat: "full", maxResultTokens: 12_000 });
    const flags = ["--response-format", "concise", "--max-result-tokens", "3000"];
    expect(serve(flags, env).upstream).toMatchObject({ responseFormat: "concise", maxResultTokens: 3000 });
  });

  it("answers --help and --version before anything else", () => {
    expect(parseCommandLine(["--help", "--transport", "nope"], {})).toEqual({ kind: "help" });
    expect(parseCommandLine(["--version"], {})).toEqual({ kind: "version" });
  });

  it.each([
    [["--transport", "ws"], {}, '--transport must be stdio or http, got "ws"'],
    [["--port", "70000"], {}, '--port must be a whole number from 0 to 65535, got "70000"'],
    [
      ["--max-sessions", "0"],
      {},
      '--max-sessions must be a whole number from 1 to 9007199254740991, got "0"',
    ],
    [
      ["--headers-timeout-ms", "40000"],
      {},
      "--headers-timeout-ms (40000) must not exceed --request-timeout-ms (30000)",
    ],
    [
      ["--keep-alive-timeout-ms", "0"],
      {},
      '--keep-alive-timeout-ms must be a whole number from 1 to 9007199254740991, got "0"',
    ],
    [["--bogus"], {}, "Unknown option '--bogus'"],
    [[], { WORKSPACE_PROJECT_ID: "nope" }, 'WORKSPACE_PROJECT_ID must be a uuid, got "nope"'],
    [[], { WORKSPACE_BASE_URL: "ftp://x" }, 'WORKSPACE_BASE_URL must be an http(s) URL, got "ftp://x"'],
    [
      [],
      { UPSTREAM_TIMEOUT_MS: "soon" },
      'UPSTREAM_TIMEOUT_MS must be a whole number from 1 to 9007199254740991, got "soon"',
    ],
    [[], { MCP_READ_ONLY: "ture" }, 'MCP_READ_ONLY must be 1/true/yes/on or 0/false/no/off, got "ture"'],
    [[], { LOG_LEVEL: "loud" }, 'LOG_LEVEL must be one of debug, info, notice, warning, error, got "loud"'],
    [[], { MCP_RESPONSE_FORMAT: "short" }, 'MCP_RESPONSE_FORMAT must be concise or full, got "short"'],
    [["--response-format", "json"], {}, '--response-format must be concise or full, got "json"'],
    [
      [],
      { MCP_MAX_RESULT_TOKENS: "100" },
      'MCP_MAX_RESULT_TOKENS must be a whole number from 500 to 1000000, got "100"',
    ],
    [
      ["--auth-token-file", "/nonexistent/token"],
      {},
      '--auth-token-file: cannot read "/nonexistent/token" (ENOENT)',
    ],
  ] as const)("rejects %j %j", (argv, env, message) => {
    expect(() => parseCommandLine([...argv], env)).toThrow(new ConfigError(message));
  });
});

describe("--max-sessions-per-key", () => {
  const perKey = (argv: string[]) => {
    const command = parseCommandLine(["--transport", "http", ...argv], {});
    return command.kind === "serve" ? command.config.http.maxSessionsPerKey : undefined;
  };

  it("defaults to a tenth of --max-sessions, at least 10, at most --max-sessions", () => {
    expect(
      [
        ["--max-sessions", "1000"],
        ["--max-sessions", "20"],
        ["--max-sessions", "4"],
      ].map(perKey),
    ).toEqual([100, 10, 4]);
    expect(perKey(["--max-sessions-per-key", "3"])).toBe(3);
  });
});
