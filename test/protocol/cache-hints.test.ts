// 2026-07-28 list results say how long a client may keep them, and only for itself (docs/protocol.md);
// 2025 answers carry no cache fields; every list comes in the same order each time.
import { CLIENT_CAPABILITIES_META_KEY, PROTOCOL_VERSION_META_KEY } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setLogLevel } from "../../src/log.js";
import { PROMPTS } from "../../src/prompts/definitions.js";
import { CACHE_HINTS } from "../../src/server.js";
import { TOOL_NAMES } from "../helpers.js";
import { type HttpHarness, MCP_HEADERS, rawRequest, startHttp } from "../http-helpers.js";

let harness: HttpHarness;
beforeAll(async () => {
  setLogLevel("error");
  harness = await startHttp([], { workspaceApiKey: "k-cache", analyticsApiKey: "k-cache" });
});
afterAll(async () => {
  await harness.close();
});

/** A 2026-07-28 request of `method` as raw HTTP, with the standard headers and `_meta` envelope. */
function modernRequest(id: number, method: string, headers: Record<string, string> = {}) {
  const _meta = { [PROTOCOL_VERSION_META_KEY]: "2026-07-28", [CLIENT_CAPABILITIES_META_KEY]: {} };
  return {
    method: "POST",
    headers: { ...MCP_HEADERS, "mcp-protocol-version": "2026-07-28", "mcp-method": method, ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", id, method, params: { _meta } }),
  };
}

const resultOf = async (id: number, method: string, headers?: Record<string, string>) => {
  const answer = await rawRequest(harness.url, modernRequest(id, method, headers));
  expect(answer.status, method).toBe(200);
  return (answer.body as { result: Record<string, unknown> }).result;
};

describe("cache hints on 2026-07-28", () => {
  it.each(["tools/list", "prompts/list", "resources/list", "resources/templates/list", "server/discover"])(
    "%s may be kept five minutes, by the client that asked only",
    async (method) => {
      const result = await resultOf(1, method);
      expect({ ttlMs: result.ttlMs, cacheScope: result.cacheScope }).toEqual({
        ttlMs: 300_000,
        cacheScope: "private",
      });
    },
  );

  it("are the ones the server is built with, for every cacheable method", () => {
    expect(Object.keys(CACHE_HINTS).sort()).toEqual([
      "prompts/list",
      "resources/list",
      "resources/read",
      "resources/templates/list",
      "server/discover",
      "tools/list",
    ]);
  });

  it("are absent from a 2025 answer", async () => {
    const client = await harness.connect();
    const listed = (await client.listTools()) as Record<string, unknown>;
    expect(listed.ttlMs).toBeUndefined();
    expect(listed.cacheScope).toBeUndefined();
    await client.close();
  });
});

describe("list order", () => {
  it("tools come in the endpoint table's order, prompts in their table's, the same every time", async () => {
    const first = await resultOf(2, "tools/list");
    const second = await resultOf(3, "tools/list");
    expect(JSON.stringify(second)).toBe(JSON.stringify(first));
    expect((first.tools as { name: string }[]).map((tool) => tool.name)).toEqual(TOOL_NAMES);
    const prompts = await resultOf(4, "prompts/list");
    expect((prompts.prompts as { name: string }[]).map((prompt) => prompt.name)).toEqual(
      PROMPTS.map((prompt) => prompt.name),
    );
  });

  it("a narrower selection keeps the same order", async () => {
    const result = await resultOf(5, "tools/list", { "x-mcp-tools": "geo_projects,whoami,tasks_query" });
    expect((result.tools as { name: string }[]).map((tool) => tool.name)).toEqual(
      TOOL_NAMES.filter((name) => ["geo_projects", "whoami", "tasks_query"].includes(name)),
    );
  });
});
