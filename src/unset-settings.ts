// The start-up line about settings left unset: which ones, and which tools will fail because of them.
// Names only, never a value. The server starts all the same (it lists its tools, and a call says what
// to set), but a person reading stderr learns it before the first call.
import type { UpstreamSettings } from "./config/types.js";
import { settingName } from "./settings-names.js";
import { ENDPOINTS } from "./tools/register.js";

const TOOLS_OF = { workspace: "the workspace tools", analytics: "the geo_ tools" } as const;

/**
 * The line for `tools` served with `settings`, or undefined when nothing they need is unset. Over
 * HTTP a client may send its own key (X-API-KEY), so there an unset key is said as such.
 */
export function unsetSettingsLine(
  settings: UpstreamSettings,
  tools: ReadonlySet<string>,
  transport: "stdio" | "http",
): string | undefined {
  const apis = new Set(ENDPOINTS.filter((e) => tools.has(e.name)).map((e) => e.api));
  const parts: string[] = [];
  const name = (key: Parameters<typeof settingName>[1]) => settingName(settings, key);
  // The workspace key serves both APIs; the analytics key, when set, only the analytics one.
  const keyless = [...apis].filter((api) => api === "workspace" || !settings.analyticsApiKey);
  if (!settings.workspaceApiKey && keyless.length > 0) {
    const failing = keyless.length === apis.size ? "every tool" : TOOLS_OF[keyless[0]!];
    const unless = transport === "http" ? " for a client that sends no X-API-KEY header" : "";
    parts.push(`${name("upstream.workspaceApiKey")} is not set: ${failing} will fail${unless}`);
  }
  if (apis.has("workspace") && !settings.workspaceBaseUrl) {
    parts.push(`${name("upstream.workspaceBaseUrl")} is not set: ${TOOLS_OF.workspace} will fail`);
  }
  if (apis.has("analytics") && !settings.analyticsBaseUrl) {
    parts.push(`${name("upstream.analyticsBaseUrl")} is not set: ${TOOLS_OF.analytics} will fail`);
  }
  return parts.length === 0 ? undefined : `${parts.join("; ")}.`;
}
