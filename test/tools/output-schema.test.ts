// No JSON the upstream sends may make a client throw a result away: every published outputSchema
// accepts any object, as the SDK v2 client's Ajv validator checks it (many random bodies per tool),
// and the SDK v2 client, which checks each structuredContent against its tool's outputSchema, takes odd
// bodies from a recording upstream.
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/client/validators/ajv";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setLogLevel } from "../../src/log.js";
import { TOOL_LIST } from "../../src/tools/register.js";
import { type RecordedHarness, startOnRecorder } from "../helpers.js";

const PROJECT = "11111111-1111-4111-8111-111111111111";
const TASK = "55555555-5555-4555-8555-555555555555";

/** Arguments each tool accepts, so that the call reaches the upstream. */
const ARGS: Record<string, Record<string, unknown>> = {
  tasks_comments: { task_id: TASK },
  agent_runs_query: { scope: "task_runs", task_id: TASK },
  attachments_download_url: { target: "task", attachment_id: TASK, task_id: TASK },
};

const validator = new AjvJsonSchemaValidator();
const tools = TOOL_LIST.tools.map((tool) => [tool.name, tool] as const);

/** Objects whose keys are mostly the schema's own fields, with any JSON values at any depth. */
function upstreamBodies(fields: string[]) {
  const value = fc.jsonValue({ maxDepth: 4 });
  return fc
    .tuple(
      fc.record(Object.fromEntries(fields.map((field) => [field, value])), { requiredKeys: [] }),
      fc.dictionary(fc.string({ maxLength: 8 }), value, { maxKeys: 3 }),
    )
    .map(([own, other]) => ({ ...other, ...own }));
}

describe.each(tools)("%s outputSchema", (_name, tool) => {
  const schema = tool.outputSchema as { properties?: Record<string, unknown> };
  const validate = validator.getValidator(tool.outputSchema as never);

  it("accepts every JSON object the upstream may send", () => {
    fc.assert(
      fc.property(upstreamBodies(Object.keys(schema.properties ?? {})), (body) => {
        expect(validate(body)).toMatchObject({ valid: true });
      }),
      { numRuns: 200 },
    );
  });

  it("describes every field it lists", () => {
    for (const field of Object.values(schema.properties ?? {})) {
      expect(field).toEqual({ description: expect.any(String) });
    }
  });
});

describe("the SDK client takes whatever the upstream answers", () => {
  let mcp: RecordedHarness;
  let answer: unknown;

  beforeAll(async () => {
    setLogLevel("error"); // the server's request log is not this test's output
    // Bytes as sent: what sanitizing changes is tested with the injection corpus (injection.test.ts).
    mcp = await startOnRecorder(
      {
        workspaceApiKey: "output-key-0123456789",
        workspaceProjectId: PROJECT,
        analyticsProjectId: PROJECT,
        sanitize: "off",
      },
      () => ({ body: answer }),
    );
  });
  afterAll(async () => {
    await mcp.close();
  });

  it.each([
    ["geo_prompts", { data: [{ id: 7, answers_count: "3", answers: null }], info: { total_rows: "1" } }],
    ["tasks_query", { items: [{ id: 12, label_ids: [null, 3], subtask_count: "2/3" }], has_more: "no" }],
    ["tasks_comments", { id: 1, author_id: { kind: "bot" }, body: ["a"], attachments: "none" }],
    ["agent_runs_query", { items: { id: "r1" }, next_cursor: 0 }],
    ["attachments_download_url", { url: null, expires_at: 1_700_000_000 }],
    ["whoami", { projects: "all" }],
  ])("%s answers %j", async (tool, body) => {
    answer = body;
    const result = await mcp.call(tool, ARGS[tool]);
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toEqual(body);
  });

  it.each(tools)("%s: random upstream bodies reach the assistant whole", async (name, tool) => {
    const fields = Object.keys((tool.outputSchema as { properties?: object }).properties ?? {});
    await fc.assert(
      fc.asyncProperty(upstreamBodies(fields), async (body) => {
        answer = body;
        const result = await mcp.call(name, ARGS[name]);
        expect(result.isError).toBeUndefined();
        expect(result.structuredContent).toEqual(JSON.parse(JSON.stringify(body)));
      }),
      { numRuns: 15 },
    );
  });
});

describe("concise answers satisfy every outputSchema", () => {
  let mcp: RecordedHarness;
  let answer: unknown;

  beforeAll(async () => {
    setLogLevel("error");
    mcp = await startOnRecorder(
      {
        workspaceApiKey: "output-key-0123456789",
        workspaceProjectId: PROJECT,
        analyticsProjectId: PROJECT,
        responseFormat: "concise",
        maxResultTokens: 500, // small, so that random bodies are cut too
      },
      () => ({ body: answer }),
    );
  });
  afterAll(async () => {
    await mcp.close();
  });

  it.each(tools)("%s: random upstream bodies, shaped and cut, still validate", async (name, tool) => {
    const validate = validator.getValidator(tool.outputSchema as never);
    const fields = Object.keys((tool.outputSchema as { properties?: object }).properties ?? {});
    await fc.assert(
      fc.asyncProperty(upstreamBodies(fields), async (body) => {
        answer = body;
        const result = await mcp.call(name, ARGS[name]); // the SDK client validates, too
        if (result.isError) return; // too large even without rows: said so, nothing to validate
        expect(validate(result.structuredContent)).toMatchObject({ valid: true });
      }),
      { numRuns: 15 },
    );
  });
});
