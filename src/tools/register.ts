// Definition -> published tool, and the one generic handler that checks arguments, forwards them
// and shapes the answer. Schemas are converted once, when this module loads, not per tools/list.
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type ListToolsResult,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { CallContext, Upstreams } from "../clients/index.js";
import { prepareResult } from "../prepared.js";
import { analyticsEndpoints } from "./analytics.js";
import type { EndpointDefinition } from "./definition.js";
import { errorResult, redact, toolErrorResult } from "./errors.js";
import { decodeStringifiedArguments, describeIssues, indexKeyPaths } from "./validation.js";
import { workspaceEndpoints } from "./workspace.js";

export const ENDPOINTS: readonly EndpointDefinition[] = [...workspaceEndpoints, ...analyticsEndpoints];

interface PreparedTool {
  definition: EndpointDefinition;
  published: Tool;
  keyPaths: Map<string, string[]>;
}

type JsonSchema = Record<string, unknown>;

const SAFE_INTEGER_BOUNDS = new Set([Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER]);

/**
 * zod -> JSON Schema, minus what only costs tokens: `$schema`, uuid patterns beside `format`, and
 * the safe-integer bounds zod adds to every integer.
 */
function publishedSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const json = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as JsonSchema;
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
  return {
    definition,
    keyPaths: indexKeyPaths(definition.input),
    published: {
      name: definition.name,
      title: definition.title,
      description: definition.description,
      inputSchema: publishedSchema(definition.input, "input") as Tool["inputSchema"],
      outputSchema: publishedSchema(definition.output, "output") as Tool["outputSchema"],
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

/** Prepared: stdio writes it from its stored JSON text. */
export const TOOL_LIST: ListToolsResult = prepareResult({
  tools: [...PREPARED_TOOLS.values()].map((tool) => tool.published),
});

/** The upstream body as it came; MCP wants an object, so any other JSON is wrapped once. */
function structured(body: unknown): Record<string, unknown> {
  if (body !== null && typeof body === "object" && !Array.isArray(body))
    return body as Record<string, unknown>;
  return Array.isArray(body) ? { items: body } : { value: body };
}

export async function callTool(
  upstreams: Upstreams,
  name: string,
  rawArguments: Record<string, unknown> | undefined,
  context: CallContext = {},
): Promise<CallToolResult> {
  const tool = PREPARED_TOOLS.get(name);
  if (!tool) {
    return errorResult(`Unknown tool "${name}". Available: ${[...PREPARED_TOOLS.keys()].join(", ")}.`);
  }
  const { definition } = tool;
  const args = decodeStringifiedArguments(definition.input, rawArguments ?? {});
  const parsed = definition.input.safeParse(args);
  if (!parsed.success) {
    const issues = describeIssues(definition.input, tool.keyPaths, parsed.error.issues);
    return errorResult(
      redact(
        `${name}: invalid arguments, nothing was sent. Fix and call again:\n${issues}`,
        upstreams.settings,
      ),
    );
  }
  try {
    const body = structured(await upstreams.call(definition, parsed.data, context));
    return { content: [{ type: "text", text: JSON.stringify(body) }], structuredContent: body };
  } catch (error) {
    if (context.signal?.aborted) throw error;
    return toolErrorResult(definition, error, upstreams.settings);
  }
}

export function registerTools(server: Server, upstreams: Upstreams): void {
  server.setRequestHandler(ListToolsRequestSchema, () => TOOL_LIST);
  server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    callTool(upstreams, request.params.name, request.params.arguments, { signal: extra.signal }),
  );
}
