// Flags and environment -> Config: defaults, precedence, and a clear error for every malformed value.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseCommandLine } from "../../src/config/parse.js";
import { SETTINGS, type Setting } from "../../src/config/settings.js";
import { type Config, ConfigError } from "../../src/config/types.js";

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
      oauth: false,
      oauthSecret: undefined,
      publicUrl: undefined,
      oauthAllowPrivateMetadata: false,
      oauthRateLimit: 60,
      trustedProxies: [],
    });
    expect(config.upstream).toEqual({
      timeoutMs: 30_000,
      retryBudgetMs: 20_000,
      maxResponseBytes: 10_485_760,
      concurrency: 8,
      responseFormat: "concise",
      maxResultTokens: 8000,
      confirmWrites: false,
      sanitize: "on",
      settingsFrom: "environment",
      givenByFlag: [],
    });
    expect(config.tools).toEqual({
      toolsets: undefined,
      tools: undefined,
      readOnly: false,
      noReportView: false,
    });
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
      MCP_NO_REPORT_VIEW: "yes",
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
    expect(config.tools).toEqual({
      toolsets: ["workspace"],
      tools: undefined,
      readOnly: true,
      noReportView: true,
    });
  });

  it("lets a flag win over its variable", () => {
    const config = serve(["--upstream-timeout-ms", "900", "--toolsets", "analytics"], {
      UPSTREAM_TIMEOUT_MS: "1500",
      MCP_TOOLSETS: "workspace",
    });
    expect(config.upstream.timeoutMs).toBe(900);
    expect(config.tools.toolsets).toEqual(["analytics"]);
    // Messages then name these two by their flags.
    expect(config.upstream.givenByFlag).toEqual(["tools.toolsets", "upstream.timeoutMs"]);
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
    [["--transport", "ws"], {}, '--transport must be stdio or http, got "ws"', ["transport"]],
    [["--port", "70000"], {}, '--port must be a whole number from 0 to 65535, got "70000"', ["http.port"]],
    [
      ["--max-sessions", "0"],
      {},
      '--max-sessions must be a whole number from 1 to 9007199254740991, got "0"',
      ["http.maxSessions"],
    ],
    [
      ["--headers-timeout-ms", "40000"],
      {},
      "--headers-timeout-ms (40000) must not exceed --request-timeout-ms (30000)",
      ["http.headersTimeoutMs", "http.requestTimeoutMs"],
    ],
    [
      ["--keep-alive-timeout-ms", "0"],
      {},
      '--keep-alive-timeout-ms must be a whole number from 1 to 9007199254740991, got "0"',
      ["http.keepAliveTimeoutMs"],
    ],
    [["--bogus"], {}, "Unknown option '--bogus'", []],
    [
      [],
      { WORKSPACE_PROJECT_ID: "nope" },
      'WORKSPACE_PROJECT_ID must be a uuid, got "nope"',
      ["upstream.workspaceProjectId"],
    ],
    [
      [],
      { WORKSPACE_BASE_URL: "ftp://x" },
      'WORKSPACE_BASE_URL must be an http(s) URL, got "ftp://x"',
      ["upstream.workspaceBaseUrl"],
    ],
    [
      [],
      { UPSTREAM_TIMEOUT_MS: "soon" },
      'UPSTREAM_TIMEOUT_MS must be a whole number from 1 to 9007199254740991, got "soon"',
      ["upstream.timeoutMs"],
    ],
    [
      [],
      { MCP_READ_ONLY: "ture" },
      'MCP_READ_ONLY must be 1/true/yes/on or 0/false/no/off, got "ture"',
      ["tools.readOnly"],
    ],
    [
      [],
      { LOG_LEVEL: "loud" },
      'LOG_LEVEL must be one of debug, info, notice, warning, error, got "loud"',
      ["logLevel"],
    ],
    [
      [],
      { MCP_RESPONSE_FORMAT: "short" },
      'MCP_RESPONSE_FORMAT must be concise or full, got "short"',
      ["upstream.responseFormat"],
    ],
    [
      ["--response-format", "json"],
      {},
      '--response-format must be concise or full, got "json"',
      ["upstream.responseFormat"],
    ],
    [
      [],
      { MCP_MAX_RESULT_TOKENS: "100" },
      'MCP_MAX_RESULT_TOKENS must be a whole number from 500 to 1000000, got "100"',
      ["upstream.maxResultTokens"],
    ],
    [
      ["--auth-token-file", "/nonexistent/token"],
      {},
      '--auth-token-file: cannot read "/nonexistent/token" (ENOENT)',
      ["http.authToken"],
    ],
  ] as const)("rejects %j %j", (argv, env, message, settings) => {
    expect(() => parseCommandLine([...argv], env)).toThrow(new ConfigError(message, settings));
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

describe("the settings table", () => {
  it("gives every setting a variable, every one but the secrets a flag, none twice", () => {
    const variables = SETTINGS.map(({ env }) => env);
    const flags = SETTINGS.flatMap(({ flag }) => (flag ? [flag] : []));
    expect(new Set(variables).size).toBe(variables.length);
    expect(new Set(flags).size).toBe(flags.length);
    expect(SETTINGS.filter(({ flag }) => !flag).map(({ env }) => env)).toEqual([
      "WORKSPACE_API_KEY",
      "ANALYTICS_API_KEY",
    ]);
    // The token's flag names a file holding it: its value never shows in the process list.
    expect(SETTINGS.filter(({ secret }) => secret).map(({ env, flag }) => [env, flag])).toEqual([
      ["WORKSPACE_API_KEY", undefined],
      ["ANALYTICS_API_KEY", undefined],
      ["MCP_AUTH_TOKEN", "auth-token-file"],
      ["MCP_OAUTH_SECRET", "oauth-secret-file"],
    ]);
  });

  it("names each variable after its flag, with MCP_ before the server's own settings", () => {
    for (const { flag, env, secret } of SETTINGS) {
      if (!flag || secret) continue;
      const name = flag.toUpperCase().replaceAll("-", "_");
      expect([name, `MCP_${name}`], flag).toContain(env);
    }
  });

  it("gives every setting one short line of help", () => {
    for (const { env, help } of SETTINGS) expect(help, env).toMatch(/^[a-z][^\n]{5,68}[^.)]$/i);
  });
});

/** The value a configuration holds for a setting's key ("field" or "group.field"). */
const valueAt = (config: Config, key: string): unknown =>
  key.split(".").reduce<unknown>((group, field) => (group as Record<string, unknown>)[field], config);

/** A text for the setting that means something else than its default, that value, and another text. */
function samples(setting: Setting): { text: string; value: unknown; other: string } {
  const { kind } = setting;
  switch (kind.name) {
    case "integer": {
      const base = typeof setting.default === "number" ? setting.default : kind.min;
      return { text: String(base + 1), value: base + 1, other: String(base + 2) };
    }
    case "switch":
      return { text: "yes", value: true, other: "off" };
    case "list":
      return { text: " one.example, two.example ", value: ["one.example", "two.example"], other: "three" };
    case "choice": {
      const word = kind.words.find((w) => w !== setting.default)!;
      return { text: word.toUpperCase(), value: word, other: kind.words.find((w) => w !== word)! };
    }
    case "url":
      return {
        text: "https://one.example/api/",
        value: "https://one.example/api",
        other: "http://two.example",
      };
    case "uuid":
      return { text: PROJECT, value: PROJECT, other: "22222222-2222-4222-8222-222222222222" };
    case "text":
      return { text: " one ", value: "one", other: "two" };
    case "addresses":
      return { text: " 10.0.0.7, fd00::/8 ", value: ["10.0.0.7", "fd00::/8"], other: "192.168.0.0/16" };
    case "redis-url":
      return {
        text: " redis://cache.example:6380/2 ",
        value: "redis://cache.example:6380/2",
        other: "rediss://two.example",
      };
  }
}

const secretFile = (contents: string) => {
  const file = join(mkdtempSync(join(tmpdir(), "config-test-")), "secret");
  writeFileSync(file, `${contents}\n`);
  return file;
};

/** The flag (and its value, for a flag that takes one) that gives the setting `text`. */
function flagArgs({ flag, kind, secret }: Setting, text: string): string[] {
  if (kind.name === "switch") return [`--${flag}`];
  return [`--${flag}`, secret ? secretFile(text) : text];
}

const named = (setting: Setting) => (setting.flag ? `--${setting.flag} / ${setting.env}` : setting.env);

describe.each(SETTINGS.map((setting) => [named(setting), setting] as const))("%s", (_, setting) => {
  const { env, flag, key } = setting;
  const { text, value, other } = samples(setting);

  it(flag ? "is set by its variable and by its flag, and the flag wins" : "is set by its variable", () => {
    expect(valueAt(serve([], { [env]: text }), key)).toEqual(value);
    if (!flag) return;
    expect(valueAt(serve(flagArgs(setting, text)), key)).toEqual(value);
    expect(valueAt(serve(flagArgs(setting, text), { [env]: other }), key)).toEqual(value);
  });

  it("leaves an empty variable unset", () => {
    expect(valueAt(serve([], { [env]: " " }), key)).toEqual(valueAt(serve([]), key));
  });
});

/** A malformed text for the setting and what its message says the value must be; none for lists and text. */
function malformed({ kind }: Setting): { bad: string; must: string } | undefined {
  switch (kind.name) {
    case "integer":
      return { bad: "2.5", must: `must be a whole number from ${kind.min} to ${kind.max}` };
    case "switch":
      return { bad: "maybe", must: "must be 1/true/yes/on or 0/false/no/off" };
    case "choice": {
      const words = kind.words.length === 2 ? kind.words.join(" or ") : `one of ${kind.words.join(", ")}`;
      return { bad: "loud", must: `must be ${words}` };
    }
    case "url":
      return { bad: "ftp://files.example", must: "must be an http(s) URL" };
    case "uuid":
      return { bad: "11111111-1111", must: "must be a uuid" };
    case "redis-url":
      return { bad: "http://cache.example:6379", must: "must be a redis:// or rediss:// URL with a host" };
    case "addresses":
      return {
        bad: "10.0.0.7, proxy.internal",
        must: "must be a comma-separated list of IP addresses or CIDR ranges",
      };
    default:
      return undefined;
  }
}

describe.each(
  SETTINGS.flatMap((setting) => {
    const rule = malformed(setting);
    return rule ? [[named(setting), setting, rule] as const] : [];
  }),
)("%s", (_, setting, { bad, must }) => {
  const { env, flag } = setting;
  it("rejects a malformed value, naming where it came from and quoting it", () => {
    expect(() => serve([], { [env]: ` ${bad} ` })).toThrow(
      new ConfigError(`${env} ${must}, got "${bad}"`, [setting.key]),
    );
    // An on/off flag takes no value: given, it is on.
    if (setting.kind.name === "switch") return;
    expect(() => serve([`--${flag}`, bad], { [env]: samples(setting).text })).toThrow(
      new ConfigError(`--${flag} ${must}, got "${bad}"`, [setting.key]),
    );
  });
});

describe("values checked against each other", () => {
  const TIMEOUTS = ["http.headersTimeoutMs", "http.requestTimeoutMs"] as const;

  it("names where the headers and request timeouts came from when one exceeds the other", () => {
    expect(() => serve([], { MCP_HEADERS_TIMEOUT_MS: "40000" })).toThrow(
      new ConfigError(
        "MCP_HEADERS_TIMEOUT_MS (40000) must not exceed --request-timeout-ms (30000)",
        TIMEOUTS,
      ),
    );
    expect(() => serve(["--request-timeout-ms", "5000"], { MCP_HEADERS_TIMEOUT_MS: "6000" })).toThrow(
      new ConfigError("MCP_HEADERS_TIMEOUT_MS (6000) must not exceed --request-timeout-ms (5000)", TIMEOUTS),
    );
    expect(() => serve([], { MCP_REQUEST_TIMEOUT_MS: "9000" })).toThrow(
      new ConfigError("--headers-timeout-ms (10000) must not exceed MCP_REQUEST_TIMEOUT_MS (9000)", TIMEOUTS),
    );
  });

  it("derives the per-key session bound from MCP_MAX_SESSIONS too, unless it is given", () => {
    expect(serve([], { MCP_MAX_SESSIONS: "20" }).http.maxSessionsPerKey).toBe(10);
    expect(serve([], { MCP_MAX_SESSIONS: "500" }).http.maxSessionsPerKey).toBe(50);
    expect(serve([], { MCP_MAX_SESSIONS: "500", MCP_MAX_SESSIONS_PER_KEY: "7" }).http.maxSessionsPerKey).toBe(
      7,
    );
  });

  it("rejects an empty flag of a setting that takes text, and an empty token file", () => {
    expect(() => serve(["--host", ""])).toThrow(
      new ConfigError('--host must not be empty, got ""', ["http.host"]),
    );
    const empty = secretFile(" ");
    expect(() => serve(["--auth-token-file", empty])).toThrow(
      new ConfigError(`--auth-token-file: "${empty}" is empty`, ["http.authToken"]),
    );
  });
});

describe("--redis-url / MCP_REDIS_URL", () => {
  const PASSWORD = "hunter2-redis-pass";

  it("takes redis:// and rediss:// URLs, credentials and database included, from the variable", () => {
    const url = `rediss://mcp:${PASSWORD}@cache.example:6380/3`;
    expect(serve([], { MCP_REDIS_URL: url }).http.redisUrl).toBe(url);
    expect(serve(["--redis-url", "redis://127.0.0.1:6379"]).http.redisUrl).toBe("redis://127.0.0.1:6379");
    expect(serve([]).http.redisUrl).toBeUndefined();
  });

  it("quotes a malformed URL without what comes before its last @, parsable or not", () => {
    const rule = "must be a redis:// or rediss:// URL with a host";
    expect(() => serve([], { MCP_REDIS_URL: `http://mcp:${PASSWORD}@cache.example` })).toThrow(
      new ConfigError(`MCP_REDIS_URL ${rule}, got "http://***@cache.example"`, ["http.redisUrl"]),
    );
    expect(() => serve([], { MCP_REDIS_URL: `redis//:${PASSWORD}@cache@example` })).toThrow(
      new ConfigError(`MCP_REDIS_URL ${rule}, got "***@example"`, ["http.redisUrl"]),
    );
    expect(() => serve(["--redis-url", `redis://:${PASSWORD}@`])).toThrow(
      new ConfigError(`--redis-url ${rule}, got "redis://***@"`, ["http.redisUrl"]),
    );
  });

  it("refuses credentials in the flag, whose value the process list shows, without quoting them", () => {
    for (const url of [`redis://:${PASSWORD}@cache.example`, `redis://mcp:${PASSWORD}@cache.example`]) {
      expect(() => serve(["--redis-url", url])).toThrow(
        new ConfigError(
          "--redis-url must not carry a user name or password (the process list shows flags): give that URL in MCP_REDIS_URL",
          ["http.redisUrl"],
        ),
      );
    }
  });
});
