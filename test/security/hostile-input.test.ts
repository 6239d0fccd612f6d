// Arguments built to hurt: tens of thousands of bad keys or values, huge names, names that
// Object.prototype also has, nesting thousands of levels deep. Each gets a short isError result that
// says what to fix, quotes at most an excerpt of what was sent, and nothing reaches the upstream.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { setLogLevel } from "../../src/log.js";
import { type McpHarness, type Recorder, startMcp, startRecorder, textOf } from "../helpers.js";
import { capturingLog, MCP_HEADERS, rawRequest, sseMessages, startHttp } from "../http-helpers.js";

const KEY = "hostile-key-0123456789";
const ANALYTICS_PROJECT = "44444444-4444-4444-8444-444444444444";
const TASKS_QUERY_KEYS = "project_id, workspace_id, view, query, group_by, response_format";
const PROMPTS_FILTERS =
  "topics, prompts, tags, markets, intent, branded, platform, has_shopping_card, has_ads_data, visibility, rank, website_mentioned_in_answer, cited_page_url, cited_domain, website_mentioned_in_citation, disabled";

let upstream: Recorder;
let mcp: McpHarness;

beforeAll(async () => {
  setLogLevel("error"); // the server's request log is not this test's output
  upstream = await startRecorder();
  mcp = await startMcp({
    workspaceBaseUrl: upstream.url,
    analyticsBaseUrl: upstream.url,
    workspaceApiKey: KEY,
    workspaceProjectId: "11111111-1111-4111-8111-111111111111",
    analyticsProjectId: ANALYTICS_PROJECT,
  });
});
afterAll(async () => {
  await mcp.close();
  await upstream.close();
  setLogLevel("info");
});
afterEach(() => {
  upstream.requests.length = 0;
});

/** The whole text of a refusal: its first line, then one line per problem. */
const refusal = (tool: string, lines: string[]) =>
  [
    `${tool}: invalid arguments, nothing was sent. Fix and call again:`,
    ...lines.map((line) => `- ${line}`),
  ].join("\n");

async function expectRefused(tool: string, args: Record<string, unknown>, lines: string[]): Promise<void> {
  const result = await mcp.call(tool, args);
  expect(result.isError).toBe(true);
  expect(textOf(result)).toBe(refusal(tool, lines));
  expect(upstream.requests).toEqual([]);
}

const TOO_MANY =
  "(arguments): more than 5000 values in all (names and list items), the most this server reads; send only what the tool takes";

describe("an answer names at most 10 problems, and how many more there are", () => {
  it("80,000 unknown keys (a 0.9 MB body): refused as too many values, without reading them all", async () => {
    const args: Record<string, unknown> = { view: "list" };
    for (let i = 0; i < 80_000; i++) args[`k${i}`] = 1;
    await expectRefused("tasks_query", args, [TOO_MANY]);
  });

  it("4,000 unknown keys: the first 10, then the count of the rest", async () => {
    const args: Record<string, unknown> = { view: "list" };
    for (let i = 0; i < 4_000; i++) args[`k${i}`] = 1;
    const named = Array.from(
      { length: 10 },
      (_, i) => `k${i}: unknown key; allowed here: ${TASKS_QUERY_KEYS}`,
    );
    await expectRefused("tasks_query", args, [...named, "…and 3990 more problems; fix these first"]);
  });

  it("4,000 metrics that are not metrics: the first 10, then the count of the rest; 5,000 are too many", async () => {
    const named = Array.from(
      { length: 10 },
      (_, i) => `metrics.${i}: Invalid option: expected one of "answers_count"|"answers"`,
    );
    await expectRefused("geo_prompts", { metrics: Array(4_000).fill("bogus") }, [
      ...named,
      "…and 3990 more problems; fix these first",
    ]);
    await expectRefused("geo_prompts", { metrics: Array(5_000).fill("bogus") }, [TOO_MANY]);
  });

  it("11 problems: 10 named, then one more", async () => {
    const args = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`x${i}`, 1]));
    const named = Array.from(
      { length: 10 },
      (_, i) => `x${i}: unknown key; allowed here: workspace_id, response_format`,
    );
    await expectRefused("whoami", args, [...named, "…and 1 more problem; fix these first"]);
  });
});

describe("client input is quoted as a 100-character excerpt at most", () => {
  it("a 100 KB unknown key comes back as its first 100 characters and its length", async () => {
    const key = `s${"k".repeat(99_999)}`;
    await expectRefused("whoami", { [key]: 1 }, [
      `${key.slice(0, 100)}… (100000 characters): unknown key; allowed here: workspace_id, response_format`,
    ]);
  });

  it("an unknown advanced_filters field of 50 KB is quoted as an excerpt", async () => {
    const field = `f${"x".repeat(49_999)}`;
    const args = { filters: { advanced_filters: { conditions: [{ field, value: "a" }] } } };
    await expectRefused("geo_prompts", args, [
      `filters.advanced_filters.conditions.0.field: "${field.slice(0, 100)}… (50000 characters)" is not a filter of this tool; valid fields: ${PROMPTS_FILTERS}`,
    ]);
  });

  it("a 900 KB tool name: the error and every log line quote at most 100 characters of it", async () => {
    const name = `t${"n".repeat(899_999)}`;
    setLogLevel("info");
    const { result: error, lines } = await capturingLog(() =>
      mcp.call(name).catch((caught: Error) => caught),
    ).finally(() => setLogLevel("error"));
    expect((error as Error).message).toContain(`"${name.slice(0, 100)}…" does not exist`);
    expect((error as Error).message.length).toBeLessThan(600);
    const refused = lines.find((line) => line.message === "tool call refused");
    expect(refused).toMatchObject({ tool: name.slice(0, 100), reason: "unknown" });
    const request = lines.find((line) => line.message === "request" && line.rpc === "tools/call");
    expect(request?.tool).toBe(name.slice(0, 100));
    for (const line of lines) expect(JSON.stringify(line).length).toBeLessThan(1_000);
    expect(upstream.requests).toEqual([]);
  });
});

describe("names are looked up as own properties: what is sent is forwarded or refused, never changed", () => {
  it("__proto__ as a geo_prompts filter name is refused, not dropped", async () => {
    const args = JSON.parse('{"filters": {"__proto__": {"items": [{"value": "x"}]}}}');
    await expectRefused("geo_prompts", args, [
      'filters.__proto__: "__proto__" is not accepted as a name; leave it out',
    ]);
  });

  it("__proto__ in tasks_query's query.filter is refused, not dropped", async () => {
    const args = JSON.parse(
      '{"view": "list", "query": {"filter": {"status": "open", "__proto__": {"a": 1}}}}',
    );
    await expectRefused("tasks_query", args, [
      'query.filter.__proto__: "__proto__" is not accepted as a name; leave it out',
    ]);
  });

  it.each(["constructor", "toString", "hasOwnProperty", "valueOf"])(
    "%s as a filter name is an unknown filter, named as such",
    async (name) => {
      await expectRefused("geo_prompts", { filters: { [name]: { items: [{ value: "x" }] } } }, [
        `filters.${name}: is not a filter of this tool; valid filters: ${PROMPTS_FILTERS}, advanced_filters`,
      ]);
      const advanced = { advanced_filters: { conditions: [{ field: name, value: "x" }] } };
      await expectRefused("geo_prompts", { filters: advanced }, [
        `filters.advanced_filters.conditions.0.field: "${name}" is not a filter of this tool; valid fields: ${PROMPTS_FILTERS}`,
      ]);
    },
  );

  it("a filter named like an Object.prototype member in tasks_query's free-form filter is forwarded as sent", async () => {
    const filter = { constructor: "x", toString: ["a"], status: "open" };
    const result = await mcp.call("tasks_query", { view: "list", query: { filter } });
    expect(result.isError).toBeUndefined();
    expect(upstream.requests.map((request) => request.body)).toEqual([{ view: "list", query: { filter } }]);
  });
});

/** tasks_query arguments whose deepest object sits `deepest` keys below the top (query.filter is 2). */
function filterReaching(deepest: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let level = deepest; level > 2; level--) value = { a: value };
  return { view: "list", query: { filter: value } };
}

describe("nesting deeper than 32 levels is refused up front, saying so", () => {
  const tooDeep =
    "query.filter.a.a…: nests deeper than 32 levels, the most this server accepts; send a flatter value";

  it("10,000 levels deep (raw JSON, which no client library would serialize): refused with the limit", async () => {
    // Written as text: JSON.stringify itself overflows the stack at this depth.
    const filter = `${'{"a":'.repeat(10_000)}{}${"}".repeat(10_000)}`;
    const body = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"tasks_query","arguments":{"view":"list","query":{"filter":${filter}}}}}`;
    const http = await startHttp(["--stateless"], { workspaceBaseUrl: upstream.url, workspaceApiKey: KEY });
    try {
      const answer = await rawRequest(http.url, { method: "POST", headers: MCP_HEADERS, body });
      expect(sseMessages(answer.body)).toEqual([
        {
          jsonrpc: "2.0",
          id: 7,
          result: { isError: true, content: [{ type: "text", text: refusal("tasks_query", [tooDeep]) }] },
        },
      ]);
    } finally {
      await http.close();
    }
    expect(upstream.requests).toEqual([]);
  });

  it("31 levels are forwarded exactly; 32 are refused", async () => {
    const deepest = filterReaching(31);
    expect((await mcp.call("tasks_query", deepest)).isError).toBeUndefined();
    expect(upstream.requests.map((request) => request.body)).toEqual([deepest]);
    upstream.requests.length = 0;
    await expectRefused("tasks_query", filterReaching(32), [tooDeep]);
  });

  it("deep nesting in an array is refused the same way", async () => {
    let value: unknown = "x";
    for (let level = 0; level < 100; level++) value = [value];
    const args = { filters: { advanced_filters: { conditions: [{ field: "topics", value }] } } };
    await expectRefused("geo_prompts", args, [
      "filters.advanced_filters.conditions.0…: nests deeper than 32 levels, the most this server accepts; send a flatter value",
    ]);
  });
});
