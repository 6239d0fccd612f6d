// What the specs allow or leave open is forwarded, not refused: each call goes through the SDK client
// to a recording upstream (the exact body it received) and to the sandbox, a strict upstream that
// answers with its own 422s, mapped for the assistant.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setLogLevel } from "../../src/log.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import {
  type InMemoryHarness,
  type RecordedHarness,
  type Recorder,
  sandboxSettings,
  sentHeaders,
  startInMemory,
  startOnRecorder,
  textOf,
} from "../helpers.js";

const KEY = "lenient-key-0123456789";
const PROJECT = "11111111-1111-4111-8111-111111111111";
const ANALYTICS_PROJECT = "44444444-4444-4444-8444-444444444444";
const TASK = "55555555-5555-4555-8555-555555555555";
const ATTACHMENT = "66666666-6666-4666-8666-666666666666";
const COMMENT = "77777777-7777-4777-8777-777777777777";

/** [tool, arguments, the body the upstream must receive] */
type Case = [string, Record<string, unknown>, unknown];
const inProject = (body: Record<string, unknown>) => ({ project_id: ANALYTICS_PROJECT, ...body });

const forwarded: Record<string, Case[]> = {
  "the spec's simpler filter shape and empty lists": [
    [
      "geo_prompts",
      { filters: { topics: { items: [{ value: "pricing" }] } } },
      inProject({ filters: { topics: { items: [{ value: "pricing" }] } } }),
    ],
    [
      "geo_tags",
      { filters: { tags: { condition: "OR", items: [] } }, order_by: [] },
      inProject({ filters: { tags: { condition: "OR", items: [] } }, order_by: [] }),
    ],
    [
      "geo_citations",
      { filters: { advanced_filters: { conditions: [{ field: "rank", operator: "lte", value: 3 }] } } },
      inProject({
        filters: { advanced_filters: { conditions: [{ field: "rank", operator: "lte", value: 3 }] } },
      }),
    ],
    [
      "geo_keywords",
      { filters: { advanced_filters: { join: "and", conditions: [{ field: "theme", value: "price" }] } } },
      inProject({
        filters: { advanced_filters: { join: "and", conditions: [{ field: "theme", value: "price" }] } },
      }),
    ],
    ["geo_prompts", { order_by: [{ field: "name" }] }, inProject({ order_by: [{ field: "name" }] })],
  ],
  "filter values: the stated type or a list of it, for operators the spec has not seen": [
    [
      "geo_prompts",
      { filters: { rank: { items: [{ operator: "in", value: [1, 2] }] } } },
      inProject({ filters: { rank: { items: [{ operator: "in", value: [1, 2] }] } } }),
    ],
    [
      "geo_websites",
      {
        filters: {
          advanced_filters: { conditions: [{ field: "url", operator: "between", value: ["a", "m"] }] },
        },
      },
      inProject({
        filters: {
          advanced_filters: { conditions: [{ field: "url", operator: "between", value: ["a", "m"] }] },
        },
      }),
    ],
    [
      "geo_prompts",
      { filters: { disabled: { items: [{ value: "false" }, { value: 0 }] } } },
      inProject({ filters: { disabled: { items: [{ value: "false" }, { value: 0 }] } } }),
    ],
  ],
  "null for an optional field is not sent; null where the spec gives it a meaning is": [
    [
      "agent_runs_query",
      { scope: "task_runs", task_id: TASK, agent_id: null, run_id: null, cursor: null, limit: null },
      { scope: "task_runs", task_id: TASK },
    ],
    ["tasks_query", { view: null, query: null, group_by: null }, { view: "list" }],
    [
      "tasks_query",
      {
        query: {
          filter: { status: null },
          sort: { sort_by: null },
          pagination: { cursor: null, page_size: 5 },
        },
      },
      { view: "list", query: { filter: { status: null }, sort: {}, pagination: { page_size: 5 } } },
    ],
    [
      "tasks_comments",
      { task_id: TASK, body: null, action: null },
      { action: "create", task_id: TASK, body: null },
    ],
    [
      "geo_prompts",
      {
        project_id: null,
        start_date: null,
        end_date: null,
        metrics: null,
        order_by: null,
        pagination: null,
        filters: { topics: null, tags: { condition: null, items: [{ operator: null, value: "crm" }] } },
      },
      inProject({ filters: { tags: { items: [{ value: "crm" }] } } }),
    ],
    [
      "geo_topics",
      { filters: null, pagination: { limit: null, offset: 5 } },
      inProject({ pagination: { offset: 5 } }),
    ],
  ],
  "dates in any ISO 8601 form, and an alias beside its field": [
    [
      "geo_topics",
      {
        start_date: "2025-01-15T10:00:00+05",
        end_date: "20250115T100000Z",
        comparison_start_date: "2025-01-01T10Z",
        comparison_end_date: "2025-01-02",
      },
      inProject({
        start_date: "2025-01-15T10:00:00+05",
        end_date: "20250115T100000Z",
        comparison_start_date: "2025-01-01T10Z",
        comparison_end_date: "2025-01-02",
      }),
    ],
    [
      "geo_tags",
      {
        start_date: "2025-01-01",
        current_from: "2025-01-01",
        end_date: "2025-01-31",
        current_to: "2025-01-31",
      },
      inProject({
        start_date: "2025-01-01",
        current_from: "2025-01-01",
        end_date: "2025-01-31",
        current_to: "2025-01-31",
      }),
    ],
  ],
  "tasks_query sends view list when none is given": [
    ["tasks_query", {}, { view: "list" }],
    ["tasks_query", { query: { include_parents: true } }, { view: "list", query: { include_parents: true } }],
  ],
  "attachments_download_url: open target, no invented required field": [
    [
      "attachments_download_url",
      { target: "comment", attachment_id: ATTACHMENT },
      { target: "comment", attachment_id: ATTACHMENT },
    ],
    [
      "attachments_download_url",
      { target: "comment", attachment_id: ATTACHMENT, comment_id: COMMENT },
      { target: "comment", attachment_id: ATTACHMENT, comment_id: COMMENT },
    ],
    [
      "attachments_download_url",
      { target: "comment", attachment_id: ATTACHMENT, comment_id: COMMENT, comment_id_name: "id_comment" },
      { target: "comment", attachment_id: ATTACHMENT, id_comment: COMMENT },
    ],
    [
      "attachments_download_url",
      { target: "page", attachment_id: ATTACHMENT, task_id: TASK },
      { target: "page", attachment_id: ATTACHMENT, task_id: TASK },
    ],
  ],
};

describe("forwarded as the API receives it", () => {
  let upstream: Recorder;
  let mcp: RecordedHarness;

  beforeAll(async () => {
    setLogLevel("error"); // the server's request log is not this test's output
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

  describe.each(Object.entries(forwarded))("%s", (_group, cases) => {
    it.each(
      cases.map(([tool, args, body]) => [`${tool} ${JSON.stringify(args)}`, tool, args, body] as const),
    )("%s", async (_label, tool, args, body) => {
      upstream.requests.length = 0;
      const result = await mcp.call(tool, args);
      expect(textOf(result)).toBe("{}");
      expect(result.isError).toBeUndefined();
      expect(upstream.requests.map((request) => request.body)).toEqual([body]);
    });
  });

  it("null for an optional routing id leaves the default in place", async () => {
    upstream.requests.length = 0;
    await mcp.call("whoami", { workspace_id: null });
    await mcp.call("tasks_query", { project_id: null, workspace_id: null });
    expect(upstream.requests.map(sentHeaders)).toEqual([
      { accept: "application/json", "x-api-key": KEY },
      {
        accept: "application/json",
        "content-type": "application/json",
        "x-api-key": KEY,
        "x-project-id": PROJECT,
      },
    ]);
  });
});

describe("against the sandbox, a strict upstream", () => {
  let sandbox: Sandbox;
  let mcp: InMemoryHarness;

  beforeAll(async () => {
    setLogLevel("error"); // the server's request log is not this test's output
    sandbox = await startSandbox({ record: true });
    mcp = await startInMemory(sandboxSettings(sandbox));
  });
  afterAll(async () => {
    await mcp.close();
    await sandbox.close();
  });

  /** Calls a tool and returns the result with the one body the sandbox received. */
  async function send(tool: string, args: Record<string, unknown>) {
    sandbox.requests.length = 0;
    const result = await mcp.call(tool, args);
    expect(sandbox.requests).toHaveLength(1);
    return { result, body: sandbox.requests[0]?.body };
  }

  it("tasks_query without view gets a page of tasks, not a 422", async () => {
    const { result, body } = await send("tasks_query", {
      query: { pagination: { page_size: 2, cursor: null } },
    });
    expect(body).toEqual({ view: "list", query: { pagination: { page_size: 2 } } });
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toMatchObject({
      has_more: true,
      items: [expect.any(Object), expect.any(Object)],
    });
  });

  it("geo_prompts accepts the simpler filter shape and dates in ISO 8601 forms", async () => {
    const args = {
      filters: { topics: { items: [{ value: "pricing" }] } },
      start_date: "2025-01-15T10:00:00+05",
      end_date: "20990115T100000Z",
      comparison_start_date: "2024-01-01T10Z",
      comparison_end_date: "2024-12-31",
    };
    const { result, body } = await send("geo_prompts", args);
    expect(body).toEqual({ project_id: sandbox.analyticsProjectId, ...args });
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toMatchObject({
      info: {
        query: {
          start_date: "2025-01-15T05:00:00Z",
          end_date: "2099-01-15T10:00:00Z",
          comparison_start_date: "2024-01-01T10:00:00Z",
          comparison_end_date: "2024-12-31T23:59:59.999Z",
          filters: { topics: { condition: "AND", items: [{ operator: "is", value: "pricing" }] } },
        },
      },
    });
  });

  it("an operator the sandbox does not know comes back as its 422, mapped", async () => {
    const { result } = await send("geo_prompts", {
      filters: { rank: { items: [{ operator: "in", value: [1] }] } },
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      "geo_prompts: 422 Unprocessable: the API rejected the arguments: body.filters.rank.items.0.operator: Input should be 'is', 'contains', 'gte' or 'lte'; body.filters.rank.items.0.value: Input should be a valid number. Fix them and call again.",
    );
  });

  it("attachments_download_url for a comment: the 422 says exactly what to send, and that call works", async () => {
    const { commentAttachmentId, commentId } = sandbox.ids;
    const missing = await send("attachments_download_url", {
      target: "comment",
      attachment_id: commentAttachmentId,
    });
    expect(textOf(missing.result)).toBe(
      "attachments_download_url: 422 Unprocessable: the API rejected the arguments: body.comment_id: Field required (send the comment's uuid as comment_id). Fix them and call again.",
    );

    const renamed = await send("attachments_download_url", {
      target: "comment",
      attachment_id: commentAttachmentId,
      comment_id: commentId,
      comment_id_name: "comment",
    });
    expect(renamed.body).toEqual({
      target: "comment",
      attachment_id: commentAttachmentId,
      comment: commentId,
    });
    expect(textOf(renamed.result)).toBe(
      'attachments_download_url: 422 Unprocessable: the API rejected the arguments: body.comment: Extra inputs are not permitted (not an argument of this tool; if it is the comment\'s id, send comment_id with comment_id_name: "comment"). Fix them and call again.',
    );

    const found = await send("attachments_download_url", {
      target: "comment",
      attachment_id: commentAttachmentId,
      comment_id: commentId,
    });
    expect(found.result.isError).toBeUndefined();
    expect(found.result.structuredContent).toMatchObject({
      url: expect.stringContaining(commentAttachmentId),
    });
  });

  it("a target the sandbox does not know comes back as its 422, mapped", async () => {
    const { result } = await send("attachments_download_url", {
      target: "page",
      attachment_id: sandbox.ids.taskAttachmentId,
    });
    expect(textOf(result)).toBe(
      "attachments_download_url: 422 Unprocessable: the API rejected the arguments: body.target: Input should be 'task' or 'comment'. Fix them and call again.",
    );
  });

  it("tasks_comments forwards a null body, which the sandbox takes as an empty comment", async () => {
    const { result, body } = await send("tasks_comments", { task_id: sandbox.ids.taskId, body: null });
    expect(body).toEqual({ action: "create", task_id: sandbox.ids.taskId, body: null });
    expect(result.structuredContent).toMatchObject({ task_id: sandbox.ids.taskId, body: "" });
  });
});
