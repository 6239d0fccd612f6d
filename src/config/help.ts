// --help: the usage text and each setting's line, from the settings table.
import { Derived } from "./kinds.js";
import { SETTINGS, type Section, type Setting } from "./settings.js";
import type { ConfigError } from "./types.js";

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

const SECTIONS: readonly Section[] = ["Options", "Upstream options", "HTTP options", "Telemetry options"];

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
