// Settings that cannot be used, said to the person who set them. Over HTTP the server refuses to start
// (exit 2), as hosting expects; over stdio the client that spawned it would show only "connection
// closed", so the server still connects and answers every call, and its instructions, with what is
// wrong and where to fix it: the variable, the flag, or the Claude Desktop extension's field.
import { parseArgs } from "node:util";
import { helpLinesOf } from "./config/help.js";
import { parseCommandLine } from "./config/parse.js";
import { SETTINGS } from "./config/settings.js";
import { ConfigError } from "./config/types.js";
import { FIELD_TITLES, type FormSetting } from "./settings-names.js";
import { SERVER_NAME } from "./version.js";

type Env = NodeJS.ProcessEnv;

/** Problems found after the first one, at most: a bound on re-reading the settings. */
const MAX_PROBLEMS = SETTINGS.length;

/**
 * Every setting that cannot be used, not only the first: the settings are read again without each
 * variable found wrong, until they read (a flag found wrong ends the search: argv stays as given).
 */
export function everyProblem(first: ConfigError, argv: string[], env: Env): ConfigError[] {
  const problems = [first];
  const rest = { ...env };
  for (let error = first; problems.length < MAX_PROBLEMS; ) {
    const variables = error.settings.flatMap((key) =>
      SETTINGS.filter((s) => s.key === key && error.message.startsWith(`${s.env} `)).map((s) => s.env),
    );
    if (variables.length === 0) break;
    for (const variable of variables) delete rest[variable];
    try {
      parseCommandLine(argv, rest);
      break;
    } catch (next) {
      if (!(next instanceof ConfigError)) break;
      problems.push(next);
      error = next;
    }
  }
  return problems;
}

/** A setting's text as flag or variable, without judging it: for the two settings read before the rest. */
function rawSetting(
  key: "transport" | "upstream.settingsFrom",
  argv: string[],
  env: Env,
): string | undefined {
  const setting = SETTINGS.find((s) => s.key === key);
  if (!setting?.flag) return undefined;
  const { values } = parseArgs({
    args: argv,
    strict: false,
    options: { [setting.flag]: { type: "string" } },
  });
  const given = values[setting.flag];
  return (typeof given === "string" ? given : env[setting.env])?.trim().toLowerCase() || undefined;
}

/** The transport asked for, when it can be told: stdio unless http is asked; undefined when malformed. */
export function transportAskedFor(argv: string[], env: Env): "stdio" | "http" | undefined {
  const text = rawSetting("transport", argv, env) ?? "stdio";
  return text === "stdio" || text === "http" ? text : undefined;
}

const inExtension = (argv: string[], env: Env) => rawSetting("upstream.settingsFrom", argv, env) === "mcpb";

/** One problem in the person's terms: in the extension, the form's field in place of the variable. */
function problemLine(error: ConfigError, extension: boolean): string {
  let text = error.message;
  if (extension) {
    for (const setting of SETTINGS) {
      const title = FIELD_TITLES[setting.key as FormSetting];
      if (title && text.startsWith(`${setting.env} `)) text = `"${title}"${text.slice(setting.env.length)}`;
    }
  }
  const help = SETTINGS.find((s) => s.key === error.settings[0])?.help;
  return help ? `${text} (${help})` : text;
}

/** Where the person fixes it: the extension's form, the server's arguments, or its environment. */
function wherePlace(problems: readonly ConfigError[], extension: boolean): string {
  if (extension) return "Fix this in the extension's settings (Claude Desktop: Settings → Extensions).";
  const byFlag = problems.some((error) => error.message.startsWith("--"));
  const byVariable = problems.some((error) => !error.message.startsWith("--"));
  const places = [
    ...(byVariable ? ['its environment ("env")'] : []),
    ...(byFlag ? ['its arguments ("args")'] : []),
  ];
  return `Fix this where the MCP client starts this server, in ${places.join(" and ")} in the client's MCP configuration, then restart the server.`;
}

/** What the person reads in every answer: each problem, then where to fix them. */
export function problemsText(problems: readonly ConfigError[], argv: string[], env: Env): string {
  const extension = inExtension(argv, env);
  const lines = problems.map((error) => `- ${problemLine(error, extension)}`);
  return [
    `${SERVER_NAME} cannot call the APIs: ${problems.length === 1 ? "a setting is" : "settings are"} wrong.`,
    ...lines,
    wherePlace(problems, extension),
  ].join("\n");
}

/** The problems for stderr: each message and the help line of each setting it concerns. */
export function problemsForStderr(problems: readonly ConfigError[]): string {
  const lines = problems.flatMap((error) => [`${SERVER_NAME}: ${error.message}`, ...helpLinesOf(error)]);
  return `${[...lines, `(${SERVER_NAME} --help lists every setting)`].join("\n")}\n`;
}
