// What a model sees of the tools: names, descriptions, annotations and schemas. Each published schema
// is snapshotted, one file per tool, so that any change to it is a visible diff in review.
import { describe, expect, it } from "vitest";
import { ENDPOINTS, TOOL_LIST } from "../../src/tools/register.js";
import { TOOL_NAMES } from "../helpers.js";

type JsonSchema = {
  type?: string | string[];
  description?: string;
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  additionalProperties?: boolean | JsonSchema;
  anyOf?: unknown;
  oneOf?: unknown;
  $ref?: unknown;
};

/** The name rule: path after the version segment, without `business`, `/` and `-` as `_`. */
function nameFromPath(path: string): string {
  const afterVersion = path.replace(/^\/(api\/)?v\d+\//, "");
  return afterVersion
    .split("/")
    .filter((segment) => segment !== "business")
    .join("_")
    .replaceAll("-", "_");
}

/** Dotted paths of every property in a schema that has no description. */
function undescribed(schema: JsonSchema, path = ""): string[] {
  const missing: string[] = [];
  for (const [key, child] of Object.entries(schema.properties ?? {})) {
    const at = path ? `${path}.${key}` : key;
    if (!child.description) missing.push(at);
    missing.push(...undescribed(child, at));
  }
  if (schema.items) missing.push(...undescribed(schema.items, `${path}[]`));
  if (typeof schema.additionalProperties === "object") {
    missing.push(...undescribed(schema.additionalProperties, `${path}.*`));
  }
  return missing;
}

describe("published tools", () => {
  it("are the 14 endpoints, named by the rule", () => {
    expect(TOOL_LIST.tools.map((tool) => tool.name)).toEqual(TOOL_NAMES);
    for (const definition of ENDPOINTS) expect(definition.name).toBe(nameFromPath(definition.path));
  });

  it.each(TOOL_LIST.tools.map((tool) => [tool.name, tool] as const))(
    "%s has a title, a description, every annotation and a described field everywhere",
    (name, tool) => {
      const readOnly = name !== "tasks_comments";
      expect(tool.title).toEqual(expect.any(String));
      expect(tool.description?.length).toBeGreaterThan(40);
      expect(tool.annotations).toEqual({
        title: tool.title,
        readOnlyHint: readOnly,
        destructiveHint: false,
        idempotentHint: readOnly,
        openWorldHint: true,
      });
      expect(undescribed(tool.inputSchema as JsonSchema)).toEqual([]);
      expect(name.length).toBeLessThanOrEqual(64);
    },
  );

  it.each(TOOL_LIST.tools.map((tool) => [tool.name, tool] as const))(
    "%s has a plain object input schema (no top-level anyOf/oneOf/$ref) that rejects unknown keys",
    (_name, tool) => {
      const schema = tool.inputSchema as JsonSchema;
      expect(schema.type).toBe("object");
      expect(schema.additionalProperties).toBe(false);
      expect([schema.anyOf, schema.oneOf, schema.$ref]).toEqual([undefined, undefined, undefined]);
    },
  );

  it.each(TOOL_LIST.tools.map((tool) => [tool.name, tool] as const))(
    "%s publishes the schema in its snapshot file",
    async (name, tool) => {
      await expect(`${JSON.stringify(tool, null, 2)}\n`).toMatchFileSnapshot(
        `__snapshots__/tools/${name}.json`,
      );
    },
  );

  it("cost under 40 KB for all 14 together (name, description, input schema)", () => {
    const bytes = TOOL_LIST.tools.reduce(
      (sum, tool) =>
        sum +
        Buffer.byteLength(
          JSON.stringify({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema }),
        ),
      0,
    );
    expect(bytes).toBeLessThan(40_000);
  });
});
