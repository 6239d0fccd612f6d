// Flags and the environment -> one Config, validated once: every setting read as the table says.
// Missing credentials are not an error here (the server still starts and lists its tools); malformed
// values are.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { Derived } from "./kinds.js";
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
