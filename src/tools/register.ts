// Tool publication: each endpoint definition becomes the tool that tools/list shows. Schemas are
// converted once, not per tools/list: by the build for the bundles (scripts/published-schemas.mjs),
// else when this module loads. Each distinct tool selection gets one ListToolsResult, shared by every
// server instance that has it.
import type { ListToolsResult, Tool } from "@modelcontextprotocol/server";
import { z } from "zod";
import { analyticsEndpoints } from "./analytics.js";
import { responseFormatArgument } from "./answers.js";
import type { EndpointDefinition } from "./definition.js";
import { PUBLISHED_AS_DESCRIBED, UNPUBLISHED } from "./schemas.js";
import { indexKeyPaths } from "./validation.js";
import { workspaceEndpoints } from "./workspace.js";

export const ENDPOINTS: readonly EndpointDefinition[] = [...workspaceEndpoints, ...analyticsEndpoints];

export interface PreparedTool {
  definition: EndpointDefinition;
  /** The definition's arguments plus response_format, which every tool takes and none forwards. */
  input: z.ZodObject;
  published: Tool;
  keyPaths: Map<string, string[]>;
}

type JsonSchema = Record<string, unknown>;

/**
 * Each tool's published schemas, converted by the build, as JSON text (a string is written where it is
 * used, here, rather than into a chunk every entry loads); not defined in the unbundled modules.
 */
declare const __PUBLISHED_SCHEMAS__: string | undefined;
const BUILT_SCHEMAS: Record<string, { input: JsonSchema; output: JsonSchema }> | undefined =
  typeof __PUBLISHED_SCHEMAS__ === "string" ? JSON.parse(__PUBLISHED_SCHEMAS__) : undefined;

const SAFE_INTEGER_BOUNDS = new Set([Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER]);

/**
 * zod -> JSON Schema, minus what only costs tokens: `$schema`, uuid patterns beside `format`, and
 * the safe-integer bounds zod adds to every integer.
 */
function publishedSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const json = z.toJSONSchema(schema, {
    io,
    unrepresentable: "any",
    override: ({ zodSchema, jsonSchema }) => {
      const node = zodSchema as unknown as z.ZodType;
      if (PUBLISHED_AS_DESCRIBED.has(node)) {
        for (const key of Object.keys(jsonSchema))
          if (key !== "type" && key !== "description") delete jsonSchema[key];
      }
      if (node instanceof z.ZodObject && jsonSchema.properties) {
        for (const [key, field] of Object.entries(node.shape)) {
          if (UNPUBLISHED.has(field as z.ZodType)) delete jsonSchema.properties[key];
        }
      }
    },
  }) as JsonSchema;
  delete json.$schema;
  return JSON.parse(JSON.stringify(json), (_key, value) => {
    if (!value || typeof value !== "object" || Array.isArray(value)) return value;
    const { pattern, minimum, maximum, ...rest } = value;
    if (pattern !== undefined && value.format !== "uuid") rest.pattern = pattern;
    if (minimum !== undefined && !SAFE_INTEGER_BOUNDS.has(minimum)) rest.minimum = minimum;
    if (maximum !== undefined && !SAFE_INTEGER_BOUNDS.has(maximum)) rest.maximum = maximum;
    return rest;
  });
}

function prepare(definition: EndpointDefinition): PreparedTool {
  const input = definition.input.safeExtend({ response_format: responseFormatArgument });
  const built = BUILT_SCHEMAS?.[definition.name];
  return {
    definition,
    input,
    keyPaths: indexKeyPaths(input),
    published: {
      name: definition.name,
      title: definition.title,
      description: definition.description,
      inputSchema: (built?.input ?? publishedSchema(input, "input")) as Tool["inputSchema"],
      outputSchema: (built?.output ?? publishedSchema(definition.output, "output")) as Tool["outputSchema"],
      annotations: {
        title: definition.title,
        readOnlyHint: definition.readOnly,
        destructiveHint: false,
        idempotentHint: definition.readOnly,
        openWorldHint: true,
      },
    },
  };
}

export const PREPARED_TOOLS: ReadonlyMap<string, PreparedTool> = new Map(
  ENDPOINTS.map((definition) => [definition.name, prepare(definition)]),
);

export const ALL_TOOL_NAMES: ReadonlySet<string> = new Set(PREPARED_TOOLS.keys());

export const TOOL_LIST: ListToolsResult = {
  tools: [...PREPARED_TOOLS.values()].map((tool) => tool.published),
};

// Bounded: HTTP clients choose selections by header, and there are 2^14 of them.
const MAX_CACHED_LISTS = 64;
const toolLists = new Map<string, ListToolsResult>();

/** Selections already looked up, by the Set itself: servers of one configuration share their Set. */
const listsBySelection = new WeakMap<ReadonlySet<string>, ListToolsResult>();

/** The tools/list answer of a selection, in table order. */
export function toolListFor(enabled: ReadonlySet<string>): ListToolsResult {
  const known = listsBySelection.get(enabled);
  if (known) return known;
  const tools = TOOL_LIST.tools.filter((tool) => enabled.has(tool.name));
  const key = tools.map((tool) => tool.name).join(",");
  let list = tools.length === TOOL_LIST.tools.length ? TOOL_LIST : toolLists.get(key);
  if (!list) {
    if (toolLists.size >= MAX_CACHED_LISTS) toolLists.delete(toolLists.keys().next().value as string);
    list = { tools };
    toolLists.set(key, list);
  }
  listsBySelection.set(enabled, list);
  return list;
}
