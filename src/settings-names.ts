// How a message names a setting a person should set: its environment variable (its flag, where the
// person gave it by flag), or, when the Claude
// Desktop extension runs the server (--settings-from mcpb, which its bundle sets), the field of the
// extension's form. The titles here are the form's own (src/build/mcpb-manifest.ts builds the form from them).
import { SETTINGS, type Setting } from "./config/settings.js";
import type { UpstreamSettings } from "./config/types.js";

/** The fields of the extension's form, by the setting each fills: the titles the host shows. */
export const FIELD_TITLES = {
  "upstream.workspaceApiKey": "API key",
  "upstream.analyticsApiKey": "Analytics API key",
  "upstream.workspaceBaseUrl": "Agent-workspace API base URL",
  "upstream.analyticsBaseUrl": "Analytics API base URL",
  "upstream.workspaceProjectId": "Default workspace project",
  "upstream.workspaceId": "Default workspace",
  "upstream.analyticsProjectId": "Default analytics project",
  "tools.toolsets": "Toolsets",
  "tools.readOnly": "Read-only",
  demo: "Sandbox (demo data)",
} as const satisfies Partial<Record<Setting["key"], string>>;

export type FormSetting = keyof typeof FIELD_TITLES;

type Place = Pick<UpstreamSettings, "settingsFrom" | "givenByFlag">;

const inForm = (settings: Place) => settings.settingsFrom === "mcpb";

/** `--workspace-base-url` where the person gave the setting by flag, else `WORKSPACE_BASE_URL`. */
export const envOf = (key: FormSetting, settings?: Place): string => {
  const setting = SETTINGS.find((s) => s.key === key);
  if (!setting) throw new Error(`no setting ${key}`);
  return setting.flag && settings?.givenByFlag?.includes(key) ? `--${setting.flag}` : setting.env;
};

/** The setting as the person knows it: `WORKSPACE_API_KEY`, or `"API key"`. */
export const settingName = (settings: Place, key: FormSetting): string =>
  inForm(settings) ? `"${FIELD_TITLES[key]}"` : envOf(key, settings);

/** Where the settings are set, to follow a setting's name. */
export const settingsPlace = (settings: Place): string =>
  inForm(settings) ? "in this extension's settings" : "in this MCP server's environment";

/** The setting to set, and, in the extension, where: `WORKSPACE_PROJECT_ID`, or `"…" in this extension's settings`. */
export const settingRef = (settings: Place, key: FormSetting): string =>
  inForm(settings) ? `${settingName(settings, key)} ${settingsPlace(settings)}` : envOf(key, settings);

/**
 * What to do about a setting left empty: `envMessage` where settings are environment variables; in the
 * extension, the field to fill in (and, where the key is what is missing, the sandbox switch).
 */
export function missingAdvice(settings: Place, key: FormSetting, what: string, envMessage: string): string {
  if (!inForm(settings)) return envMessage;
  const sandbox =
    key === "upstream.workspaceApiKey"
      ? `, or turn on "${FIELD_TITLES.demo}" to try the tools on invented data`
      : "";
  return `No ${what}: fill in "${FIELD_TITLES[key]}" in this extension's settings (Claude Desktop: Settings → Extensions)${sandbox}.`;
}
