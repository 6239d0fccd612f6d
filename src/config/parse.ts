// Flags and the environment -> one Config, validated once: every setting read as the table says.
// Missing credentials are not an error here (the server still starts and lists its tools); malformed
// values are.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { Derived, list } from "./kinds.js";
import { SETTINGS, type Setting, TABLE } from "./settings.js";
import { type CliCommand, type Config, ConfigError, type ConfigKey } from "./types.js";

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
  // An example's "<your API key>" left as it was: said as such, and a secret's text never quoted.
  if (/^<[^<>]*>$/.test(text)) {
    const quoted = setting.secret ? "" : ` "${text}"`;
    throw new ConfigError(
      `${source} still holds the example's placeholder${quoted}: put the real value there`,
      [setting.key],
    );
  }
  const value = setting.kind.parse(text);
  if (value === undefined) {
    const shown = setting.kind.shown?.(text) ?? text;
    throw new ConfigError(`${source} ${setting.kind.rule}, got "${shown}"`, [setting.key]);
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
  const built: Record<string, unknown> = { http: {}, upstream: {}, tools: {}, telemetry: {} };
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
  config.upstream.givenByFlag = [...sources]
    .filter(([, source]) => source.startsWith("--"))
    .map(([key]) => key);
  // node requires it of its server; the message names where each value came from (a default: its flag).
  const named = (key: ConfigKey) => sources.get(key) ?? `--${TABLE[key].flag}`;
  const { headersTimeoutMs, requestTimeoutMs } = config.http;
  if (headersTimeoutMs > requestTimeoutMs) {
    throw new ConfigError(
      `${named("http.headersTimeoutMs")} (${headersTimeoutMs}) must not exceed ${named("http.requestTimeoutMs")} (${requestTimeoutMs})`,
      ["http.headersTimeoutMs", "http.requestTimeoutMs"],
    );
  }
  const { metricsPort } = config.telemetry;
  if (
    config.transport === "http" &&
    metricsPort !== undefined &&
    metricsPort !== 0 &&
    metricsPort === config.http.port
  ) {
    throw new ConfigError(
      `${named("telemetry.metricsPort")} (${metricsPort}) must differ from ${named("http.port")}: metrics have a listener of their own`,
      ["telemetry.metricsPort", "http.port"],
    );
  }
  // A flag's value shows in the process list: a password goes in the variable instead.
  if (config.http.redisUrl && sources.get("http.redisUrl") === "--redis-url") {
    const { username, password } = new URL(config.http.redisUrl);
    if (username || password) {
      throw new ConfigError(
        "--redis-url must not carry a user name or password (the process list shows flags): give that URL in MCP_REDIS_URL",
        ["http.redisUrl"],
      );
    }
  }
  return config;
}

/** The shortest secret --oauth accepts: 32 characters, about 190 bits when random. */
export const MIN_OAUTH_SECRET_LENGTH = 32;

/**
 * Checked when the server starts: --oauth serves HTTP only, and needs a secret (a sandbox makes its
 * own), each at least MIN_OAUTH_SECRET_LENGTH long.
 */
export function assertOAuthSettings(config: Config): void {
  const { oauth, oauthSecret } = config.http;
  if (!oauth) return;
  if (config.transport !== "http") {
    throw new ConfigError("--oauth signs in clients of the HTTP transport: add --transport http", [
      "transport",
    ]);
  }
  const publicUrl = config.http.publicUrl;
  if (publicUrl !== undefined && new URL(publicUrl).pathname !== "/") {
    throw new ConfigError(
      `--public-url is the origin clients reach the server at (scheme, host and port), without a path: got "${publicUrl}"`,
      ["http.publicUrl"],
    );
  }
  if (oauthSecret === undefined) {
    if (config.demo) return;
    throw new ConfigError(
      `--oauth needs a secret: set MCP_OAUTH_SECRET or --oauth-secret-file (random, at least ${MIN_OAUTH_SECRET_LENGTH} characters)`,
      ["http.oauthSecret"],
    );
  }
  const secrets = list(oauthSecret) ?? [];
  if (secrets.length === 0 || secrets.some((secret) => secret.length < MIN_OAUTH_SECRET_LENGTH)) {
    throw new ConfigError(
      `the OAuth secret must be a comma-separated list of secrets of at least ${MIN_OAUTH_SECRET_LENGTH} characters each`,
      ["http.oauthSecret"],
    );
  }
}

export function parseCommandLine(argv: string[], env: Env): CliCommand {
  const flags = parseFlags(argv);
  if (flags.help) return { kind: "help" };
  if (flags.version) return { kind: "version" };
  return { kind: "serve", config: readConfig(flags, env) };
}
