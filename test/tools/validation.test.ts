// Every documented limit is enforced before anything is sent: the result says what to fix, and the
// upstream sees no request at all.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setLogLevel } from "../../src/log.js";
import { type RecordedHarness, type Recorder, startOnRecorder, textOf } from "../helpers.js";

const ID = "11111111-1111-4111-8111-111111111111";
// Not RFC-versioned (version nibble 0): still an 8-4-4-4-12 hex id the services may use.
const PLAIN_HEX_ID = "00000000-0000-0000-0000-000000000000";

const filter = (value: unknown) => ({ condition: "AND", items: [{ value }] });

const rejected: [string, Record<string, unknown>, string][] = [
  [
    "tasks_query",
    { view: "list", query: { pagination: { page_size: 0 } } },
    "- query.pagination.page_size: Too small: expected number to be >=1",
  ],
  [
    "tasks_query",
    { view: "list", query: { pagination: { page_size: 101 } } },
    "- query.pagination.page_size: Too big: expected number to be <=100",
  ],
  [
    "tasks_query",
    { view: "list", query: { pagination: { page_size: 2.5 } } },
    "- query.pagination.page_size: Invalid input: expected int, received number",
  ],
  ["tasks_query", { view: "counts" }, "- group_by: is required when view is `counts`"],
  ["tasks_query", { view: "table" }, '- view: Invalid option: expected one of "list"|"counts"'],
  [
    "tasks_query",
    { view: "counts", group_by: "label" },
    '- group_by: Invalid option: expected one of "status"|"priority"|"assignee_id"|"creator_id"|"page_id"',
  ],
  [
    "tasks_query",
    { view: "list", query: { page_size: 5 } },
    "- query.page_size: unknown key (page_size belongs at query.pagination.page_size); allowed here: filter, sort, pagination, include_parents",
  ],
  [
    "tasks_query",
    { view: "list", page_size: 5 },
    "- page_size: unknown key (page_size belongs at query.pagination.page_size); allowed here: project_id, workspace_id, view, query, group_by",
  ],
  ["tasks_query", { project_id: "not-a-uuid", view: "list" }, "- project_id: Invalid GUID"],
  ["tasks_comments", { task_id: ID, action: "delete" }, '- action: Invalid input: expected "create"'],
  ["tasks_comments", { body: "hi" }, "- task_id: Invalid input: expected string, received undefined"],
  ["agent_runs_query", { scope: "task_runs" }, "- task_id: is required for scope `task_runs`"],
  ["agent_runs_query", { scope: "agent_runs" }, "- agent_id: is required for scope `agent_runs`"],
  [
    "agent_runs_query",
    { scope: "run_progress", task_id: ID },
    "- run_id: is required for scope `run_progress`",
  ],
  [
    "agent_runs_query",
    { scope: "task_runs", task_id: ID, limit: 0 },
    "- limit: Too small: expected number to be >=1",
  ],
  [
    "agent_runs_query",
    { scope: "task_runs", task_id: ID, limit: 101 },
    "- limit: Too big: expected number to be <=100",
  ],
  [
    "attachments_download_url",
    { target: "task", attachment_id: ID },
    "- task_id: is required when target is `task`",
  ],
  ["geo_projects", { project_id: ID }, "- project_id: unknown key; allowed here: response_format"],
  ["geo_prompts", { pagination: { limit: 0 } }, "- pagination.limit: Too small: expected number to be >=1"],
  ["geo_prompts", { pagination: { limit: 101 } }, "- pagination.limit: Too big: expected number to be <=100"],
  [
    "geo_prompts",
    { pagination: { offset: -1 } },
    "- pagination.offset: Too small: expected number to be >=0",
  ],
  [
    "geo_prompts",
    { metrics: ["visibility_score"] },
    '- metrics.0: Invalid option: expected one of "answers_count"|"answers"',
  ],
  [
    "geo_prompts",
    { order_by: [{ field: "created_date", order: "desc" }] },
    '- order_by.0.field: Invalid option: expected one of "answers_count"|"answers"|"name"|"search_volume"',
  ],
  [
    "geo_prompts",
    { order_by: [{ field: "name", order: "down" }] },
    '- order_by.0.order: Invalid option: expected one of "asc"|"desc"',
  ],
  [
    "geo_tags",
    { filters: { disabled: filter(true) } },
    "- filters.disabled: is not a filter of this tool; valid filters:",
  ],
  [
    "geo_topics",
    { comparison_start_date: "2026-01-01" },
    "- comparison_end_date: a comparison range needs both comparison_start_date and comparison_end_date",
  ],
  [
    "geo_topics",
    { previous_to: "2026-01-31" },
    "- comparison_start_date: a comparison range needs both comparison_start_date and comparison_end_date",
  ],
  ["geo_citations", { metrics: ["mentions_count"] }, "- metrics: unknown key; allowed here: project_id,"],
  ["geo_reports_sentiments", { metrics: ["x"] }, "- metrics: unknown key; allowed here: project_id,"],
  [
    "geo_prompts",
    { filters: { branded: filter("yes") } },
    "- filters.branded.items.0.value: must be a boolean (or a list of them) for this filter",
  ],
  [
    "geo_prompts",
    { filters: { rank: filter("3") } },
    "- filters.rank.items.0.value: must be a number (or a list of them) for this filter",
  ],
  [
    "geo_prompts",
    { filters: { tags: { condition: "XOR", items: [{ value: "a" }] } } },
    '- filters.tags.condition: Invalid option: expected one of "AND"|"OR"',
  ],
  [
    "geo_prompts",
    { filters: { tags: { condition: "AND", items: [{ value: "a", op: "is" }] } } },
    "- filters.tags.items.0.op: unknown key; allowed here: operator, value",
  ],
  [
    "geo_prompts",
    {
      filters: {
        advanced_filters: { join: "and", conditions: [{ field: "slug", operator: "is", value: "x" }] },
      },
    },
    '- filters.advanced_filters.conditions.0.field: "slug" is not a filter of this tool; valid fields:',
  ],
  [
    "geo_prompts",
    { filters: { rank: { items: [{ operator: "in", value: [1, "2"] }] } } },
    "- filters.rank.items.0.value: must be a number (or a list of them) for this filter",
  ],
  [
    "geo_prompts",
    { filters: { advanced_filters: { conditions: [{ field: "branded", value: [true, 1] }] } } },
    "- filters.advanced_filters.conditions.0.value: must be a boolean (or a list of them) for this filter",
  ],
  [
    "attachments_download_url",
    { target: "comment", attachment_id: ID, comment_id_name: "comment" },
    "- comment_id: is needed: comment_id_name only renames it",
  ],
  [
    "attachments_download_url",
    { target: "comment", attachment_id: ID, comment_id: ID, comment_id_name: "project_id" },
    "- comment_id_name: names an argument of this tool; give the field name the API's 422 asked for",
  ],
  ["tasks_comments", { task_id: null }, "- task_id: Invalid input: expected string, received null"],
  [
    "geo_keywords",
    { metrics: ["mentions_count"] },
    '- metrics.0: Invalid option: expected one of "website_count"|"subtheme_count"|"theme_count"',
  ],
];

describe("arguments are checked before anything is sent", () => {
  let upstream: Recorder;
  let mcp: RecordedHarness;

  beforeAll(async () => {
    setLogLevel("error"); // the server's request log is not this test's output
    mcp = await startOnRecorder({
      workspaceApiKey: "k-validation",
      workspaceProjectId: ID,
      analyticsProjectId: ID,
    });
    upstream = mcp.upstream;
  });
  afterAll(async () => {
    await mcp.close();
  });

  it.each(
    rejected.map(([tool, args, line]) => [`${tool} ${JSON.stringify(args)}`, tool, args, line] as const),
  )("%s is rejected locally", async (_label, tool, args, line) => {
    const result = await mcp.call(tool, args);
    expect(result.isError).toBe(true);
    const text = textOf(result);
    expect(text.startsWith(`${tool}: invalid arguments, nothing was sent. Fix and call again:\n`)).toBe(true);
    expect(text.split("\n")).toContainEqual(expect.stringContaining(line));
    expect(upstream.requests).toEqual([]);
  });

  it("accepts any 8-4-4-4-12 hex id, not only RFC-versioned uuids", async () => {
    const result = await mcp.call("tasks_comments", { task_id: PLAIN_HEX_ID, project_id: PLAIN_HEX_ID });
    expect(result.isError).toBeUndefined();
    expect(upstream.requests.map((r) => [r.headers["x-project-id"], r.body])).toEqual([
      [PLAIN_HEX_ID, { action: "create", task_id: PLAIN_HEX_ID }],
    ]);
    upstream.requests.length = 0;
  });

  it("accepts object arguments sent as JSON text, as some clients do", async () => {
    const result = await mcp.call("tasks_query", { view: "list", query: '{"pagination":{"page_size":3}}' });
    expect(result.isError).toBeUndefined();
    expect(upstream.requests.map((r) => r.body)).toEqual([
      { view: "list", query: { pagination: { page_size: 3 } } },
    ]);
    upstream.requests.length = 0;
  });

  it("refuses an unknown tool with the JSON-RPC error the specification gives, listing the real ones", async () => {
    await expect(mcp.call("tasks_delete", {})).rejects.toMatchObject({
      code: -32602,
      message:
        'Unknown tool: "tasks_delete" does not exist. Available: whoami, tasks_query, tasks_comments, agent_runs_query, attachments_download_url, geo_projects, geo_prompts, geo_tags, geo_topics, geo_models, geo_websites, geo_citations, geo_keywords, geo_reports_sentiments.',
    });
    expect(upstream.requests).toEqual([]);
  });

  it("quotes at most 100 characters of an unknown tool's name", async () => {
    const name = `x${"y".repeat(5_000)}`;
    const error = await mcp.call(name, {}).catch((caught: Error) => caught);
    expect((error as Error).message).toContain(`"${name.slice(0, 100)}…" does not exist`);
    expect((error as Error).message.length).toBeLessThan(600);
  });
});
