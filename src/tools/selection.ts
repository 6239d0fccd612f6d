// Which tools a server (or one HTTP session) serves: toolsets, an exact allow-list and read-only,
// each narrowing the others. A name that is not a toolset or a tool is an error listing the valid
// ones, so a typo can never silently serve everything (or nothing).
import type { IncomingHttpHeaders } from "node:http";
import { list, parseSwitch } from "../config/kinds.js";
import { ConfigError, type ConfigKey, type ToolSelection } from "../config/types.js";
import type { ApiName } from "./definition.js";
import { ALL_TOOL_NAMES, ENDPOINTS } from "./register.js";

/** Each API is a toolset, named after it: `workspace` (5 tools) and `analytics` (the 9 geo_ tools). */
export const TOOLSETS: ReadonlyMap<ApiName, readonly string[]> = new Map(
  (["workspace", "analytics"] as const).map((api) => [
    api,
    ENDPOINTS.filter((endpoint) => endpoint.api === api).map((endpoint) => endpoint.name),
  ]),
);

const CREATES_DATA = new Set(ENDPOINTS.filter((endpoint) => !endpoint.readOnly).map((e) => e.name));

/** What the messages call each setting: the flag and variable at start, the header per session. */
export interface SelectionSources {
  toolsets: string;
  tools: string;
  /** Whether a message may quote the values given: the operator's own flags, yes; a client's headers, no. */
  quoteValues: boolean;
}

export const START_SOURCES: SelectionSources = {
  toolsets: "--toolsets (MCP_TOOLSETS)",
  tools: "--tools (MCP_TOOLS)",
  quoteValues: true,
};

// A header's value is never quoted back: a key pasted into the wrong header must not come back.
export const HEADER_SOURCES: SelectionSources = {
  toolsets: "X-MCP-Toolsets",
  tools: "X-MCP-Tools",
  quoteValues: false,
};

function checkNames(
  setting: ConfigKey,
  source: string,
  kind: string,
  names: string[],
  valid: Iterable<string>,
  quoteValues: boolean,
): void {
  const known = [...valid];
  const validList = known.join(", ");
  if (names.length === 0)
    throw new ConfigError(`${source} is empty; valid ${kind}s: ${validList}`, [setting]);
  const unknown = names.filter((name) => !known.includes(name));
  if (unknown.length === 0) return;
  const plural = unknown.length > 1 ? "s" : "";
  const what = quoteValues
    ? `${source}: unknown ${kind}${plural} ${unknown.map((name) => `"${name}"`).join(", ")}`
    : `${source} holds ${unknown.length} name${plural} that ${plural ? "are not" : "is not a"} ${kind}${plural}`;
  throw new ConfigError(`${what}; valid ${kind}s: ${validList}`, [setting]);
}

/**
 * The tools a selection leaves enabled out of `within` (every tool at start; the server's own set for
 * an HTTP session, which can therefore only narrow it). Throws ConfigError on any unknown name or
 * when nothing is left.
 */
export function selectTools(
  selection: ToolSelection,
  within: ReadonlySet<string> = ALL_TOOL_NAMES,
  sources: SelectionSources = START_SOURCES,
): ReadonlySet<string> {
  let names = [...within];
  if (selection.toolsets !== undefined) {
    checkNames(
      "tools.toolsets",
      sources.toolsets,
      "toolset",
      selection.toolsets,
      TOOLSETS.keys(),
      sources.quoteValues,
    );
    const chosen = new Set(selection.toolsets.flatMap((toolset) => TOOLSETS.get(toolset as ApiName) ?? []));
    names = names.filter((name) => chosen.has(name));
  }
  if (selection.tools !== undefined) {
    checkNames("tools.tools", sources.tools, "tool", selection.tools, ALL_TOOL_NAMES, sources.quoteValues);
    const allowed = new Set(selection.tools);
    names = names.filter((name) => allowed.has(name));
  }
  if (selection.readOnly) names = names.filter((name) => !CREATES_DATA.has(name));
  if (names.length === 0) {
    throw new ConfigError(
      `the tool selection leaves no tool to serve; choose among: ${[...within].join(", ")}`,
      ["tools.toolsets", "tools.tools", "tools.readOnly"],
    );
  }
  return new Set(names);
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(",") : value;
}

/** X-MCP-Toolsets, X-MCP-Tools and X-MCP-Read-Only as a selection; a malformed switch throws ConfigError. */
export function selectionFromHeaders(headers: IncomingHttpHeaders): ToolSelection {
  const readOnly = header(headers, "x-mcp-read-only");
  const readOnlyOn = readOnly === undefined ? false : parseSwitch(readOnly);
  if (readOnlyOn === undefined) {
    throw new ConfigError("X-MCP-Read-Only must be 1/true/yes/on or 0/false/no/off");
  }
  return {
    toolsets: list(header(headers, "x-mcp-toolsets")),
    tools: list(header(headers, "x-mcp-tools")),
    readOnly: readOnlyOn,
  };
}

/** The tools one HTTP session gets: the server's, narrowed by the session's X-MCP-* headers. */
export function sessionTools(
  headers: IncomingHttpHeaders,
  serverTools: ReadonlySet<string>,
): ReadonlySet<string> {
  return selectTools(selectionFromHeaders(headers), serverTools, HEADER_SOURCES);
}
