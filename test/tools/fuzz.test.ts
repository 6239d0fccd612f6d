// Property-based tests over every tool's arguments, through the SDK Client and a recording upstream:
// random JSON never crashes the server, invalid arguments never reach the upstream, valid arguments
// are forwarded exactly (routing ids as headers, defaults filled in).
import fc from "fast-check";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { EndpointDefinition } from "../../src/tools/definition.js";
import { ENDPOINTS } from "../../src/tools/register.js";
import { validArguments } from "../arbitraries.js";
import { type RecordedHarness, type Recorder, startOnRecorder, textOf } from "../helpers.js";

const KEY = "fuzz-key-0123456789";
const PROJECT = "11111111-1111-4111-8111-111111111111";
const ANALYTICS_PROJECT = "44444444-4444-4444-8444-444444444444";
const RUNS = { random: 30, invalid: 20, valid: 50 };

let upstream: Recorder;
let mcp: RecordedHarness;

beforeAll(async () => {
  mcp = await startOnRecorder({
    workspaceApiKey: KEY,
    workspaceProjectId: PROJECT,
    analyticsProjectId: ANALYTICS_PROJECT,
  });
  upstream = mcp.upstream;
});
afterAll(async () => {
  await mcp.close();
});
afterEach(async () => {
  // The server still answers a plain call normally.
  upstream.requests.length = 0;
  expect((await mcp.call("whoami")).isError).toBeUndefined();
  upstream.requests.length = 0;
});

const keysOf = (definition: EndpointDefinition) => Object.keys(definition.input.shape);

/**
 * `check` run once for each distinct argument JSON a property draws: the JSON is what the call sends, so
 * a repeated draw is the same call, already checked (geo_projects takes no arguments of its own: all its
 * valid draws are `{}`, most of its invalid ones repeat too).
 */
function oncePerCall(check: (args: Record<string, unknown>) => Promise<void>) {
  const checked = new Set<string>();
  return async (args: Record<string, unknown>) => {
    const json = JSON.stringify(args);
    if (checked.has(json)) return;
    checked.add(json);
    await check(args);
  };
}

/** Objects mixing the tool's own keys, with any JSON values, and random keys. */
const randomArguments = (definition: EndpointDefinition) =>
  fc
    .tuple(
      fc.record(Object.fromEntries(keysOf(definition).map((key) => [key, fc.jsonValue({ maxDepth: 3 })])), {
        requiredKeys: [],
      }),
      fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 3 }),
    )
    .map(([own, random]) => ({ ...random, ...own }));

/** Valid arguments spoiled one way: an unknown key, or a known key given a value no field accepts. */
const invalidArguments = (definition: EndpointDefinition) =>
  fc
    .tuple(
      validArguments(definition),
      fc.boolean(),
      fc.constantFrom(...keysOf(definition), "unknown_key"),
      fc.constantFrom(12345.5, [[]]),
    )
    .map(([args, extraKey, key, value]) => ({ ...args, [extraKey ? "unknown_key" : key]: value }));

/** What the upstream must receive for valid arguments. */
function expectedRequest(definition: EndpointDefinition, args: Record<string, unknown>) {
  const json = (value: unknown) => JSON.parse(JSON.stringify(value));
  if (definition.api === "analytics") {
    const body = definition.projectScoped ? { project_id: ANALYTICS_PROJECT, ...args } : args;
    return { headers: { "x-api-key": KEY }, body: json(body) };
  }
  const { project_id, workspace_id, ...rest } = args as Record<string, string | undefined>;
  const headers: Record<string, string> = { "x-api-key": KEY };
  if (workspace_id) headers["x-workspace-id"] = workspace_id;
  if (definition.projectScoped) headers["x-project-id"] = project_id ?? PROJECT;
  const defaults = definition.name === "tasks_query" ? { view: "list" } : {};
  const body =
    definition.method === "GET"
      ? undefined
      : json(definition.readOnly ? { ...defaults, ...rest } : { action: "create", ...rest });
  return { headers, body };
}

it("argument names that Object.prototype also has are plain unknown keys", async () => {
  for (const definition of ENDPOINTS) {
    for (const key of ["valueOf", "constructor", "toString", "hasOwnProperty"]) {
      const args = JSON.parse(`{"${key}": "{}"}`);
      const result = await mcp.call(definition.name, args);
      expect(textOf(result)).toContain(`- ${key}: unknown key; allowed here: `);
    }
  }
  expect(upstream.requests).toEqual([]);
});

describe.each(ENDPOINTS.map((definition) => [definition.name, definition] as const))(
  "%s",
  (name, definition) => {
    it("random JSON arguments always get a tool result, and invalid ones send nothing", async () => {
      await fc.assert(
        fc.asyncProperty(
          randomArguments(definition),
          oncePerCall(async (args) => {
            upstream.requests.length = 0;
            const result = await mcp.call(name, args);
            expect(result.content[0]?.type).toBe("text");
            if (
              result.isError &&
              textOf(result).startsWith(`${name}: invalid arguments, nothing was sent.`)
            ) {
              expect(upstream.requests).toEqual([]);
            } else {
              expect(result.isError).toBeUndefined();
              expect(upstream.requests).toHaveLength(1);
            }
          }),
        ),
        { numRuns: RUNS.random },
      );
    });

    it("invalid arguments never reach the upstream", async () => {
      await fc.assert(
        fc.asyncProperty(
          invalidArguments(definition),
          oncePerCall(async (args) => {
            upstream.requests.length = 0;
            const result = await mcp.call(name, args);
            expect(result.isError).toBe(true);
            expect(textOf(result)).toMatch(
              new RegExp(`^${name}: invalid arguments, nothing was sent\\. Fix and call again:\\n- `),
            );
            expect(upstream.requests).toEqual([]);
          }),
        ),
        { numRuns: RUNS.invalid },
      );
    });

    it("valid arguments are forwarded exactly", async () => {
      await fc.assert(
        fc.asyncProperty(
          validArguments(definition),
          oncePerCall(async (args) => {
            upstream.requests.length = 0;
            const result = await mcp.call(name, args);
            expect(result.isError).toBeUndefined();
            const { headers, body } = expectedRequest(definition, args);
            expect(upstream.requests).toHaveLength(1);
            // One comparison: the method, path and body, each expected header, and no workspace id unless expected.
            const [request] = upstream.requests;
            const named = [...Object.keys(headers), "x-workspace-id"];
            expect({
              method: request?.method,
              path: request?.path,
              body: request?.body,
              headers: Object.fromEntries(named.map((header) => [header, request?.headers[header]])),
            }).toEqual({
              method: definition.method,
              path: definition.path,
              body,
              headers: Object.fromEntries(named.map((header) => [header, headers[header]])),
            });
          }),
        ),
        { numRuns: RUNS.valid },
      );
    });
  },
);
