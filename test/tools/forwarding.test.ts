// Every tool: the exact request a real loopback upstream records, and the exact result the client gets.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type InMemoryHarness,
  type Recorder,
  sentHeaders,
  startInMemory,
  startRecorder,
} from "../helpers.js";

const KEY = "test-key-0123456789";
const PROJECT = "11111111-1111-4111-8111-111111111111";
const OTHER_PROJECT = "22222222-2222-4222-8222-222222222222";
const WORKSPACE = "33333333-3333-4333-8333-333333333333";
const ANALYTICS_PROJECT = "44444444-4444-4444-8444-444444444444";
const TASK = "55555555-5555-4555-8555-555555555555";
const ATTACHMENT = "66666666-6666-4666-8666-666666666666";
const COMMENT = "77777777-7777-4777-8777-777777777777";
const RUN = "88888888-8888-4888-8888-888888888888";
const AGENT = "99999999-9999-4999-8999-999999999999";

interface Case {
  tool: string;
  args: Record<string, unknown>;
  method: "GET" | "POST";
  path: string;
  headers: Record<string, string>;
  body: unknown;
  answer: unknown;
  /** What structuredContent must be, when it differs from the answer. */
  structured?: unknown;
}

const JSON_HEADERS = { accept: "application/json", "content-type": "application/json", "x-api-key": KEY };
const projectHeaders = (project = PROJECT) => ({ ...JSON_HEADERS, "x-project-id": project });
const analytics = (path: string) => `/analytics/v2/geo${path}`;

const task = {
  id: TASK,
  project_id: PROJECT,
  title: "Write the launch post",
  status: "backlog",
  priority: "urgent",
};
const listing = { data: [{ id: TASK, name: "best crm" }], info: { total_rows: 1, query: { metrics: [] } } };

const cases: Case[] = [
  {
    tool: "whoami",
    args: {},
    method: "GET",
    path: "/api/v1/business/whoami",
    headers: { accept: "application/json", "x-api-key": KEY },
    body: undefined,
    answer: { user: { id: "u1" }, teams: [], projects: [{ id: PROJECT, name: "Launch" }] },
  },
  {
    tool: "whoami",
    args: { workspace_id: WORKSPACE },
    method: "GET",
    path: "/api/v1/business/whoami",
    headers: { accept: "application/json", "x-api-key": KEY, "x-workspace-id": WORKSPACE },
    body: undefined,
    answer: { projects: [] },
  },
  {
    tool: "tasks_query",
    args: {
      view: "list",
      query: { sort: { sort_by: "created_at", sort_order: "desc" }, pagination: { page_size: 2 } },
    },
    method: "POST",
    path: "/api/v1/business/tasks/query",
    headers: projectHeaders(),
    body: {
      view: "list",
      query: { sort: { sort_by: "created_at", sort_order: "desc" }, pagination: { page_size: 2 } },
    },
    answer: { items: [task], has_more: true, next_cursor: "c2" },
  },
  {
    tool: "tasks_query",
    args: {
      project_id: OTHER_PROJECT,
      workspace_id: WORKSPACE,
      view: "counts",
      group_by: "status",
      query: { filter: { status: ["backlog"] } },
    },
    method: "POST",
    path: "/api/v1/business/tasks/query",
    headers: { ...projectHeaders(OTHER_PROJECT), "x-workspace-id": WORKSPACE },
    body: { view: "counts", group_by: "status", query: { filter: { status: ["backlog"] } } },
    answer: { total: 3, group_by: "status", groups: [{ key: "backlog", count: 3 }] },
  },
  {
    tool: "tasks_comments",
    args: { task_id: TASK, body: "Looks good" },
    method: "POST",
    path: "/api/v1/business/tasks/comments",
    headers: projectHeaders(),
    body: { action: "create", task_id: TASK, body: "Looks good" },
    answer: {
      id: COMMENT,
      task_id: TASK,
      author_type: "human",
      author_id: null,
      body: "Looks good",
      created_at: "2026-01-01T00:00:00Z",
    },
  },
  {
    tool: "agent_runs_query",
    args: { scope: "task_runs", task_id: TASK, limit: 5, cursor: "r1" },
    method: "POST",
    path: "/api/v1/business/agent-runs/query",
    headers: projectHeaders(),
    body: { scope: "task_runs", task_id: TASK, limit: 5, cursor: "r1" },
    answer: { items: [{ id: RUN, task_id: TASK, agent_id: AGENT, status: "pending" }], next_cursor: null },
  },
  {
    tool: "agent_runs_query",
    args: { scope: "run_progress", task_id: TASK, run_id: RUN },
    method: "POST",
    path: "/api/v1/business/agent-runs/query",
    headers: projectHeaders(),
    body: { scope: "run_progress", task_id: TASK, run_id: RUN },
    answer: [{ index: 0, type: "tool_call" }],
    structured: { items: [{ index: 0, type: "tool_call" }] },
  },
  {
    tool: "attachments_download_url",
    args: { target: "comment", attachment_id: ATTACHMENT, comment_id: COMMENT },
    method: "POST",
    path: "/api/v1/business/attachments/download-url",
    headers: projectHeaders(),
    body: { target: "comment", attachment_id: ATTACHMENT, comment_id: COMMENT },
    answer: {
      url: "https://files.example/x?sig=1",
      filename: "a.pdf",
      content_type: "application/pdf",
      expires_at: "2026-01-01T00:15:00Z",
    },
  },
  {
    tool: "geo_projects",
    args: {},
    method: "POST",
    path: analytics("/business/projects"),
    headers: JSON_HEADERS,
    body: {},
    answer: {
      data: [
        {
          id: ANALYTICS_PROJECT,
          name: "Brand",
          url: "https://brand.example",
          created_at: "2026-01-01T00:00:00Z",
        },
      ],
    },
  },
  {
    tool: "geo_prompts",
    args: {
      metrics: ["answers_count"],
      order_by: [{ field: "answers_count", order: "desc" }],
      pagination: { limit: 5, offset: 10 },
      filters: { disabled: { condition: "AND", items: [{ value: false }] } },
    },
    method: "POST",
    path: analytics("/business/prompts"),
    headers: JSON_HEADERS,
    body: {
      project_id: ANALYTICS_PROJECT,
      metrics: ["answers_count"],
      order_by: [{ field: "answers_count", order: "desc" }],
      pagination: { limit: 5, offset: 10 },
      filters: { disabled: { condition: "AND", items: [{ value: false }] } },
    },
    answer: listing,
  },
  {
    tool: "geo_tags",
    args: {
      project_id: OTHER_PROJECT,
      current_from: "2026-01-01",
      current_to: "2026-01-31",
      filters: { slug: { condition: "OR", items: [{ operator: "is", value: "pricing" }] } },
    },
    method: "POST",
    path: analytics("/business/tags"),
    headers: JSON_HEADERS,
    body: {
      project_id: OTHER_PROJECT,
      current_from: "2026-01-01",
      current_to: "2026-01-31",
      filters: { slug: { condition: "OR", items: [{ operator: "is", value: "pricing" }] } },
    },
    answer: listing,
  },
  {
    tool: "geo_topics",
    args: {
      metrics: ["prompts_count"],
      start_date: "2026-02-01T00:00:00Z",
      end_date: "2026-02-28",
      comparison_start_date: "2026-01-01",
      comparison_end_date: "2026-01-31",
    },
    method: "POST",
    path: analytics("/business/topics"),
    headers: JSON_HEADERS,
    body: {
      project_id: ANALYTICS_PROJECT,
      metrics: ["prompts_count"],
      start_date: "2026-02-01T00:00:00Z",
      end_date: "2026-02-28",
      comparison_start_date: "2026-01-01",
      comparison_end_date: "2026-01-31",
    },
    answer: listing,
  },
  {
    tool: "geo_models",
    args: {
      metrics: ["visibility_score"],
      order_by: [{ field: "visibility_score", order: "desc" }],
      filters: { name: { condition: "AND", items: [{ operator: "contains", value: "gpt" }] } },
    },
    method: "POST",
    path: analytics("/business/models"),
    headers: JSON_HEADERS,
    body: {
      project_id: ANALYTICS_PROJECT,
      metrics: ["visibility_score"],
      order_by: [{ field: "visibility_score", order: "desc" }],
      filters: { name: { condition: "AND", items: [{ operator: "contains", value: "gpt" }] } },
    },
    answer: { data: [{ name: "gpt", visibility_score: 0.4 }], info: { total_rows: 1 } },
  },
  {
    tool: "geo_websites",
    args: {
      metrics: ["mentions_count"],
      previous_from: "2025-12-01",
      previous_to: "2025-12-31",
      filters: { url: { condition: "AND", items: [{ value: "brand.example" }] } },
    },
    method: "POST",
    path: analytics("/business/websites"),
    headers: JSON_HEADERS,
    body: {
      project_id: ANALYTICS_PROJECT,
      metrics: ["mentions_count"],
      previous_from: "2025-12-01",
      previous_to: "2025-12-31",
      filters: { url: { condition: "AND", items: [{ value: "brand.example" }] } },
    },
    answer: { data: [], info: { total_rows: 0 } },
  },
  {
    tool: "geo_citations",
    args: {
      pagination: { limit: 100 },
      filters: {
        domain: { condition: "OR", items: [{ value: "a.example" }, { value: "b.example" }] },
        advanced_filters: { join: "or", conditions: [{ field: "rank", operator: "lte", value: 3 }] },
      },
    },
    method: "POST",
    path: analytics("/business/citations"),
    headers: JSON_HEADERS,
    body: {
      project_id: ANALYTICS_PROJECT,
      pagination: { limit: 100 },
      filters: {
        domain: { condition: "OR", items: [{ value: "a.example" }, { value: "b.example" }] },
        advanced_filters: { join: "or", conditions: [{ field: "rank", operator: "lte", value: 3 }] },
      },
    },
    answer: { data: [{ url: "https://a.example/p" }], info: { total_rows: 1 } },
  },
  {
    tool: "geo_keywords",
    args: {
      metrics: ["website_count", "theme_count"],
      filters: { theme: { condition: "AND", items: [{ value: "pricing" }] } },
    },
    method: "POST",
    path: analytics("/business/keywords"),
    headers: JSON_HEADERS,
    body: {
      project_id: ANALYTICS_PROJECT,
      metrics: ["website_count", "theme_count"],
      filters: { theme: { condition: "AND", items: [{ value: "pricing" }] } },
    },
    answer: { data: [{ keyword: "cheap crm", website_count: 4 }], info: { total_rows: 1 } },
  },
  {
    tool: "geo_reports_sentiments",
    args: {
      dimensions: ["topic", "model"],
      measures: ["total_keyword_occurrences"],
      date_aggregation_interval: "week",
      website_type: "SELF",
      filters: { status: { condition: "AND", items: [{ value: "ACTIVE" }] } },
    },
    method: "POST",
    path: analytics("/reports/sentiments"),
    headers: JSON_HEADERS,
    body: {
      project_id: ANALYTICS_PROJECT,
      dimensions: ["topic", "model"],
      measures: ["total_keyword_occurrences"],
      date_aggregation_interval: "week",
      website_type: "SELF",
      filters: { status: { condition: "AND", items: [{ value: "ACTIVE" }] } },
    },
    answer: {
      data: [{ topic: "pricing", model: "gpt", total_keyword_occurrences: 12 }],
      info: { total_rows: 1 },
    },
  },
];

describe("every tool forwards exactly one request and returns the upstream body", () => {
  let upstream: Recorder;
  let mcp: InMemoryHarness;
  let nextAnswer: unknown;

  beforeAll(async () => {
    upstream = await startRecorder(() => ({ body: nextAnswer }));
    mcp = await startInMemory({
      workspaceBaseUrl: upstream.url,
      analyticsBaseUrl: `${upstream.url}/analytics`,
      workspaceApiKey: KEY,
      workspaceProjectId: PROJECT,
      analyticsProjectId: ANALYTICS_PROJECT,
    });
  });
  afterAll(async () => {
    await mcp.close();
    await upstream.close();
  });

  it.each(cases.map((c) => [`${c.tool} ${JSON.stringify(c.args)}`, c] as const))("%s", async (_label, c) => {
    upstream.requests.length = 0;
    nextAnswer = c.answer;
    const result = await mcp.call(c.tool, c.args);

    expect(upstream.requests).toHaveLength(1);
    const [request] = upstream.requests;
    expect(request?.method).toBe(c.method);
    expect(request?.path).toBe(c.path);
    expect(sentHeaders(request!)).toEqual(c.headers);
    expect(request?.body).toEqual(c.body);

    const structured = c.structured ?? c.answer;
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toEqual(structured);
    expect(result.content).toEqual([{ type: "text", text: JSON.stringify(structured) }]);
  });

  it("covers all 14 tools", () => {
    expect(new Set(cases.map((c) => c.tool)).size).toBe(14);
  });
});
