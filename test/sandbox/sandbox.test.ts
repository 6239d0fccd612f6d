import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  SANDBOX_API_KEY,
  SANDBOX_SINGLE_PROJECT_API_KEY,
  type Sandbox,
  startSandbox,
} from "../../src/sandbox/index.js";

// biome-ignore lint/suspicious/noExplicitAny: response bodies are arbitrary JSON, pinned down by assertions
type J = any;

const NOW = new Date("2026-02-01T12:00:00.000Z");
let sandbox: Sandbox;

interface Reply {
  status: number;
  body: J;
  headers: Headers;
}

async function request(
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
) {
  const res = await fetch(sandbox.url + path, init);
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // non-JSON (file downloads) stays text
  }
  return { status: res.status, body, headers: res.headers } as Reply;
}

/** Workspace API call with the main key and the default project unless overridden. */
function ws(path: string, body?: unknown, headers: Record<string, string | undefined> = {}): Promise<Reply> {
  const merged: Record<string, string | undefined> = {
    "x-api-key": SANDBOX_API_KEY,
    "x-project-id": sandbox.workspaceProjectId,
    "content-type": "application/json",
    ...headers,
  };
  const clean = Object.fromEntries(Object.entries(merged).filter(([, v]) => v !== undefined)) as Record<
    string,
    string
  >;
  return request(`/api/v1/business${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: clean,
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
}

function geo(path: string, body: unknown, key = SANDBOX_API_KEY): Promise<Reply> {
  return request(path.startsWith("/v2") ? path : `/v2/geo/business${path}`, {
    method: "POST",
    headers: { "x-api-key": key, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

const listing = (path: string, extra: Record<string, unknown> = {}) =>
  geo(path, { project_id: sandbox.analyticsProjectId, ...extra });

const TASK_FIELDS = [
  "id",
  "project_id",
  "identifier",
  "title",
  "description",
  "status",
  "priority",
  "creator_type",
  "creator_id",
  "assignee_type",
  "assignee_id",
  "parent_task_id",
  "page_id",
  "schedule_id",
  "due_date",
  "sort_order",
  "started_at",
  "completed_at",
  "comment_count",
  "last_comment_at",
  "created_at",
  "updated_at",
  "subtask_count",
  "label_ids",
  "relation_ids",
];
const RUN_FIELDS = [
  "id",
  "task_id",
  "agent_id",
  "status",
  "trigger",
  "started_at",
  "ended_at",
  "error_message",
  "failure_reason",
  "log_pointer",
  "last_comment_id",
  "cancelled_by_user_id",
  "input_tokens",
  "output_tokens",
  "created_at",
  "updated_at",
];

/** Walks every page of a task query and returns all items. */
async function walkTasks(query: Record<string, unknown>, pageSize: number): Promise<J[]> {
  const items: J[] = [];
  let cursor: string | undefined;
  for (let guard = 0; guard < 100; guard++) {
    const pagination = cursor ? { page_size: pageSize, cursor } : { page_size: pageSize };
    const res = await ws("/tasks/query", { view: "list", query: { ...query, pagination } });
    expect(res.status).toBe(200);
    items.push(...res.body.items);
    expect(res.body.has_more).toBe(res.body.next_cursor !== null);
    if (!res.body.has_more) return items;
    cursor = res.body.next_cursor;
  }
  throw new Error("pagination did not end");
}

beforeAll(async () => {
  sandbox = await startSandbox({ record: true, now: () => NOW });
});

afterAll(async () => {
  await sandbox.close();
});

describe("sandbox basics", () => {
  it("exposes the documented handles", () => {
    expect(sandbox.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(sandbox.workspaceBaseUrl).toBe(sandbox.url);
    expect(sandbox.analyticsBaseUrl).toBe(sandbox.url);
    expect(sandbox.apiKey).toBe(SANDBOX_API_KEY);
    expect(sandbox.workspaceProjectId).toBe(sandbox.ids.workspaceProjects[0]);
    expect(sandbox.analyticsProjectId).toBe(sandbox.ids.analyticsProjects[0]);
    // The third of each is the Inbox project, seeded with the injection corpus.
    expect(sandbox.ids.workspaceProjects).toHaveLength(3);
    expect(sandbox.ids.analyticsProjects).toHaveLength(3);
    for (const id of [
      sandbox.ids.taskId,
      sandbox.ids.runId,
      sandbox.ids.commentAttachmentId,
      sandbox.ids.otherWorkspaceId,
    ]) {
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
  });

  it("is deterministic across starts", async () => {
    const first = await ws("/tasks/query", { view: "list", query: { pagination: { page_size: 100 } } });
    const prompts = await listing("/prompts", { metrics: ["answers_count", "answers"] });
    const other = await startSandbox();
    try {
      expect(other.ids).toEqual(sandbox.ids);
      const again = await fetch(`${other.url}/api/v1/business/tasks/query`, {
        method: "POST",
        headers: { "x-api-key": SANDBOX_API_KEY, "x-project-id": other.workspaceProjectId },
        body: JSON.stringify({ view: "list", query: { pagination: { page_size: 100 } } }),
      });
      expect(await again.json()).toEqual(first.body);
      const promptsAgain = await fetch(`${other.url}/v2/geo/business/prompts`, {
        method: "POST",
        headers: { "x-api-key": SANDBOX_API_KEY },
        body: JSON.stringify({ project_id: other.analyticsProjectId, metrics: ["answers_count", "answers"] }),
      });
      expect(await promptsAgain.json()).toEqual(prompts.body);
    } finally {
      await other.close();
    }
  });

  it("answers 401 without a valid key, on both APIs", async () => {
    for (const headers of [{ "x-api-key": undefined }, { "x-api-key": "wrong" }]) {
      const res = await ws("/whoami", undefined, headers);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ detail: "Missing or invalid API key" });
    }
    const geoRes = await geo("/projects", {}, "nope");
    expect(geoRes.status).toBe(401);
    expect(geoRes.body).toEqual({ detail: "Missing or invalid API key" });
  });

  it("answers 404 for unknown paths and 405 for wrong methods", async () => {
    const missing = await ws("/nothing-here", {});
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ detail: "Not Found" });
    const wrong = await ws("/tasks/query");
    expect(wrong.status).toBe(405);
    expect(wrong.body).toEqual({ detail: "Method Not Allowed" });
    expect(wrong.headers.get("content-type")).toBe("application/json");
  });

  it("rejects oversized bodies with 413 and broken JSON with 422", async () => {
    const big = await ws("/tasks/query", JSON.stringify({ view: "list", pad: "x".repeat(1024 * 1024 + 10) }));
    expect(big.status).toBe(413);
    const broken = await ws("/tasks/query", "{not json");
    expect(broken.status).toBe(422);
    expect(broken.body.detail[0]).toMatchObject({ type: "json_invalid", loc: ["body"] });
    const empty = await ws("/tasks/query", "");
    expect(empty.status).toBe(422);
    expect(empty.body.detail).toEqual([
      { type: "missing", loc: ["body"], msg: "Field required", input: null },
    ]);
  });

  it("records requests with lower-cased headers and parsed bodies", async () => {
    sandbox.requests.length = 0;
    await ws("/tasks/query", { view: "counts", group_by: "status" }, { "X-Custom-Header": "Yes" });
    await ws("/tasks/query", "plain text");
    expect(sandbox.requests).toHaveLength(2);
    const [first, second] = sandbox.requests;
    expect(first).toMatchObject({
      method: "POST",
      path: "/api/v1/business/tasks/query",
      body: { view: "counts", group_by: "status" },
    });
    expect(first!.headers["x-custom-header"]).toBe("Yes");
    expect(first!.headers["x-api-key"]).toBe(SANDBOX_API_KEY);
    expect(second!.body).toBe("plain text");
  });
});

describe("workspace scoping", () => {
  it("whoami returns the caller, teams and visible projects", async () => {
    const res = await ws("/whoami", undefined, { "x-project-id": undefined });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["user", "workspace", "teams", "projects"]);
    expect(res.body.user).toEqual({
      id: sandbox.ids.userId,
      name: "Ada Lovelace",
      email: "ada@acme.example",
    });
    expect(res.body.workspace).toEqual({ id: sandbox.ids.workspaceId, name: "Acme Research" });
    expect(res.body.teams.map((t: J) => t.name)).toEqual(["Growth", "Platform"]);
    expect(res.body.projects).toEqual([
      { id: sandbox.ids.workspaceProjects[0], name: "Growth Marketing", identifier_prefix: "GRO" },
      { id: sandbox.ids.workspaceProjects[1], name: "Platform", identifier_prefix: "PLT" },
      { id: sandbox.ids.workspaceProjects[2], name: "Inbox", identifier_prefix: "INB" },
    ]);
  });

  it("the single-project key is a different user with exactly one project", async () => {
    const res = await ws("/whoami", undefined, { "x-api-key": SANDBOX_SINGLE_PROJECT_API_KEY });
    expect(res.status).toBe(200);
    expect(res.body.user.id).not.toBe(sandbox.ids.userId);
    expect(res.body.workspace.id).toBe(sandbox.ids.otherWorkspaceId);
    expect(res.body.projects.map((p: J) => p.id)).toEqual([sandbox.ids.singleKeyWorkspaceProjectId]);
    const tasks = await ws(
      "/tasks/query",
      { view: "counts", group_by: "status" },
      {
        "x-api-key": SANDBOX_SINGLE_PROJECT_API_KEY,
        "x-project-id": sandbox.ids.singleKeyWorkspaceProjectId,
      },
    );
    expect(tasks.status).toBe(200);
    expect(tasks.body.total).toBe(40);
  });

  it("requires a well-formed X-Project-Id", async () => {
    const missing = await ws("/tasks/query", { view: "list" }, { "x-project-id": undefined });
    expect(missing.status).toBe(422);
    expect(missing.body).toEqual({
      detail: [{ type: "missing", loc: ["header", "x-project-id"], msg: "Field required", input: null }],
    });
    const bad = await ws("/tasks/query", { view: "bogus" }, { "x-project-id": "not-a-uuid" });
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((d: J) => d.loc)).toEqual([
      ["header", "x-project-id"],
      ["body", "view"],
    ]);
    expect(bad.body.detail[0].type).toBe("uuid_parsing");
  });

  it("answers 403 for projects and workspaces the key cannot use", async () => {
    for (const project of [
      sandbox.ids.forbiddenWorkspaceProjectId,
      sandbox.ids.singleKeyWorkspaceProjectId,
    ]) {
      const res = await ws("/tasks/query", { view: "list" }, { "x-project-id": project });
      expect(res.status).toBe(403);
      expect(typeof res.body.detail).toBe("string");
    }
    const otherWs = await ws(
      "/tasks/query",
      { view: "list" },
      { "x-workspace-id": sandbox.ids.otherWorkspaceId },
    );
    expect(otherWs.status).toBe(403);
    const whoamiOther = await ws("/whoami", undefined, { "x-workspace-id": sandbox.ids.otherWorkspaceId });
    expect(whoamiOther.status).toBe(403);
    const ownWs = await ws("/tasks/query", { view: "list" }, { "x-workspace-id": sandbox.ids.workspaceId });
    expect(ownWs.status).toBe(200);
    // 403 wins over body faults once the headers are fine.
    const both = await ws(
      "/tasks/query",
      { view: "bogus" },
      { "x-project-id": sandbox.ids.forbiddenWorkspaceProjectId },
    );
    expect(both.status).toBe(403);
  });
});

describe("tasks/query", () => {
  it("pages through every task exactly once", async () => {
    const counts = await ws("/tasks/query", { view: "counts", group_by: "status" });
    const all = await walkTasks({}, 37);
    expect(all).toHaveLength(counts.body.total);
    expect(all).toHaveLength(220);
    expect(new Set(all.map((t) => t.id)).size).toBe(220);
    for (const task of all) {
      expect(Object.keys(task)).toEqual(TASK_FIELDS);
      expect(task.project_id).toBe(sandbox.workspaceProjectId);
    }
    const created = all.map((t) => t.created_at);
    expect(created).toEqual([...created].sort().reverse());
  });

  it("applies filters to lists and counts alike", async () => {
    const filter = { status: ["done", "cancelled"], assignee_type: "human" };
    const items = await walkTasks({ filter }, 100);
    const counts = await ws("/tasks/query", { view: "counts", group_by: "status", query: { filter } });
    expect(items.length).toBe(counts.body.total);
    expect(items.length).toBeGreaterThan(0);
    expect(items.every((t) => ["done", "cancelled"].includes(t.status) && t.assignee_type === "human")).toBe(
      true,
    );
    expect(counts.body.groups.map((g: J) => g.key).sort()).toEqual(["cancelled", "done"]);

    const dated = await walkTasks(
      { filter: { due_date_from: "2025-12-01", due_date_to: "2025-12-31" } },
      100,
    );
    expect(dated.length).toBeGreaterThan(0);
    expect(dated.every((t) => t.due_date >= "2025-12-01" && t.due_date <= "2025-12-31")).toBe(true);

    const titled = await walkTasks({ filter: { title_contains: "LANDING PAGE" } }, 100);
    expect(titled.length).toBeGreaterThan(0);
    expect(titled.every((t) => t.title.toLowerCase().includes("landing page"))).toBe(true);

    const task = (await walkTasks({}, 100)).find((t) => t.id === sandbox.ids.taskId);
    const labelled = await walkTasks({ filter: { label_ids: [task.label_ids[0]] } }, 100);
    expect(labelled.some((t) => t.id === sandbox.ids.taskId)).toBe(true);
    expect(labelled.every((t) => t.label_ids.includes(task.label_ids[0]))).toBe(true);
  });

  it("counts sum to the total and are sorted by count", async () => {
    for (const groupBy of ["status", "priority", "assignee_id", "creator_id", "page_id"]) {
      const res = await ws("/tasks/query", { view: "counts", group_by: groupBy });
      expect(res.status).toBe(200);
      expect(res.body.group_by).toBe(groupBy);
      expect(res.body.total).toBe(220);
      const groups = res.body.groups as Array<{ key: string | null; count: number }>;
      expect(groups.reduce((sum, g) => sum + g.count, 0)).toBe(220);
      expect(groups.map((g) => g.count)).toEqual([...groups.map((g) => g.count)].sort((a, b) => b - a));
    }
    const byAssignee = await ws("/tasks/query", { view: "counts", group_by: "assignee_id" });
    expect(byAssignee.body.groups.some((g: J) => g.key === null)).toBe(true);
    const noGroup = await ws("/tasks/query", { view: "counts" });
    expect(noGroup.status).toBe(422);
    expect(noGroup.body.detail[0]).toMatchObject({ type: "missing", loc: ["body", "group_by"] });
  });

  it("sorts with nulls last and stable ties", async () => {
    const byPriority = await walkTasks({ sort: { sort_by: "priority", sort_order: "desc" } }, 100);
    const rank = ["none", "low", "medium", "high", "urgent"];
    const ranks = byPriority.map((t) => rank.indexOf(t.priority));
    expect(ranks).toEqual([...ranks].sort((a, b) => b - a));
    const byDue = await walkTasks({ sort: { sort_by: "due_date", sort_order: "asc" } }, 100);
    const firstNull = byDue.findIndex((t) => t.due_date === null);
    expect(firstNull).toBeGreaterThan(0);
    expect(byDue.slice(firstNull).every((t) => t.due_date === null)).toBe(true);
    const nullIds = byDue.slice(firstNull).map((t) => t.id);
    expect(nullIds).toEqual([...nullIds].sort());
  });

  it("includes the parents of a page's subtasks", async () => {
    const res = await ws("/tasks/query", {
      view: "list",
      query: { include_parents: true, filter: { title_contains: "(part of" }, pagination: { page_size: 10 } },
    });
    expect(res.status).toBe(200);
    const pageIds = new Set(res.body.items.map((t: J) => t.id));
    const wanted = new Set(res.body.items.map((t: J) => t.parent_task_id));
    expect(res.body.parents.length).toBeGreaterThan(0);
    for (const parent of res.body.parents) {
      expect(pageIds.has(parent.id)).toBe(false);
      expect(wanted.has(parent.id)).toBe(true);
      expect(Object.keys(parent)).toEqual(TASK_FIELDS);
    }
    const plain = await ws("/tasks/query", { view: "list", query: { pagination: { page_size: 1 } } });
    expect(plain.body).not.toHaveProperty("parents");
  });

  it("knows the special task and its subtasks", async () => {
    const subs = await walkTasks({ filter: { title_contains: "part of GRO-41)" } }, 100);
    const sub = subs.find((t) => t.id === sandbox.ids.subtaskId);
    expect(sub.parent_task_id).toBe(sandbox.ids.taskId);
    const all = await walkTasks({}, 100);
    const task = all.find((t) => t.id === sandbox.ids.taskId);
    expect(task.identifier).toBe("GRO-41");
    expect(task.assignee_id).toBe(sandbox.ids.agentId);
    expect(task.subtask_count.total).toBe(all.filter((t) => t.parent_task_id === task.id).length);
    expect(task.subtask_count.total).toBeGreaterThanOrEqual(3);
  });

  it("rejects malformed queries with precise locations", async () => {
    const tooBig = await ws("/tasks/query", { view: "list", query: { pagination: { page_size: 101 } } });
    expect(tooBig.status).toBe(422);
    expect(tooBig.body).toEqual({
      detail: [
        {
          type: "less_than_equal",
          loc: ["body", "query", "pagination", "page_size"],
          msg: "Input should be less than or equal to 100",
          input: 101,
          ctx: { le: 100 },
        },
      ],
    });
    const unknown = await ws("/tasks/query", {
      view: "list",
      extra: 1,
      query: { filter: { colour: "red", priority: ["urgent", "bad"] }, sort: { sort_by: "identifier" } },
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail.map((d: J) => [d.type, d.loc])).toEqual([
      ["literal_error", ["body", "query", "filter", "priority", 1]],
      ["extra_forbidden", ["body", "query", "filter", "colour"]],
      ["literal_error", ["body", "query", "sort", "sort_by"]],
      ["extra_forbidden", ["body", "extra"]],
    ]);
    const badDate = await ws("/tasks/query", {
      view: "list",
      query: { filter: { due_date_from: "2026-02-30" } },
    });
    expect(badDate.body.detail[0].loc).toEqual(["body", "query", "filter", "due_date_from"]);
  });

  it("binds cursors to their query", async () => {
    const page = await ws("/tasks/query", { view: "list", query: { pagination: { page_size: 5 } } });
    const cursor = page.body.next_cursor;
    const same = await ws("/tasks/query", { view: "list", query: { pagination: { page_size: 5, cursor } } });
    expect(same.status).toBe(200);
    const other = await ws("/tasks/query", {
      view: "list",
      query: { filter: { status: "done" }, pagination: { page_size: 5, cursor } },
    });
    expect(other.status).toBe(422);
    expect(other.body.detail[0]).toMatchObject({
      type: "value_error",
      loc: ["body", "query", "pagination", "cursor"],
    });
    const garbage = await ws("/tasks/query", { view: "list", query: { pagination: { cursor: "%%%" } } });
    expect(garbage.status).toBe(422);
  });
});

describe("comments, runs and downloads", () => {
  it("creates a comment and updates the task counters", async () => {
    const before = (await walkTasks({}, 100)).find((t) => t.id === sandbox.ids.taskId);
    const res = await ws("/tasks/comments", {
      action: "create",
      task_id: sandbox.ids.taskId,
      body: "Hello from a test",
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      task_id: sandbox.ids.taskId,
      author_type: "human",
      author_id: sandbox.ids.userId,
      body: "Hello from a test",
      edited_at: null,
      attachments: [],
    });
    const after = (await walkTasks({}, 100)).find((t) => t.id === sandbox.ids.taskId);
    expect(after.comment_count).toBe(before.comment_count + 1);
    expect(after.last_comment_at).toBe(res.body.created_at);
    expect(after.updated_at).toBe(res.body.created_at);
  });

  it("rejects bad comments", async () => {
    const missingTask = await ws("/tasks/comments", {
      action: "create",
      task_id: "00000000-0000-4000-8000-000000000000",
    });
    expect(missingTask.status).toBe(404);
    expect(missingTask.body).toEqual({ detail: "Task not found" });
    const wrongProject = await ws(
      "/tasks/comments",
      { action: "create", task_id: sandbox.ids.taskId },
      { "x-project-id": sandbox.ids.workspaceProjects[1] },
    );
    expect(wrongProject.status).toBe(404);
    const badAction = await ws("/tasks/comments", { action: "delete", task_id: sandbox.ids.taskId, body: 3 });
    expect(badAction.status).toBe(422);
    expect(badAction.body.detail.map((d: J) => d.loc)).toEqual([
      ["body", "action"],
      ["body", "body"],
    ]);
  });

  it("lists the runs of a task, newest first", async () => {
    const res = await ws("/agent-runs/query", { scope: "task_runs", task_id: sandbox.ids.taskId });
    expect(res.status).toBe(200);
    expect(res.body.next_cursor).toBeNull();
    const items = res.body.items as J[];
    expect(items.length).toBeGreaterThanOrEqual(4);
    expect(items.every((r) => r.task_id === sandbox.ids.taskId)).toBe(true);
    expect(Object.keys(items[0])).toEqual(RUN_FIELDS);
    expect(items.map((r) => r.created_at)).toEqual(
      items
        .map((r) => r.created_at)
        .sort()
        .reverse(),
    );
    expect(items.map((r) => r.id)).toContain(sandbox.ids.runId);
    expect(items.some((r) => r.status === "failed" && r.failure_reason === "iteration_limit")).toBe(true);
  });

  it("pages through an agent's runs", async () => {
    const seen: J[] = [];
    let cursor: string | null | undefined;
    do {
      const body: Record<string, unknown> = { scope: "agent_runs", agent_id: sandbox.ids.agentId, limit: 3 };
      if (cursor) body.cursor = cursor;
      const res = await ws("/agent-runs/query", body);
      expect(res.status).toBe(200);
      seen.push(...res.body.items);
      cursor = res.body.next_cursor;
    } while (cursor);
    expect(seen.length).toBeGreaterThan(3);
    expect(new Set(seen.map((r) => r.id)).size).toBe(seen.length);
    expect(seen.every((r) => r.agent_id === sandbox.ids.agentId)).toBe(true);
  });

  it("reports the steps of a run", async () => {
    const res = await ws("/agent-runs/query", {
      scope: "run_progress",
      task_id: sandbox.ids.taskId,
      run_id: sandbox.ids.runId,
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["run_id", "status", "steps"]);
    expect(res.body).toMatchObject({ run_id: sandbox.ids.runId, status: "completed" });
    expect(res.body.steps.length).toBeGreaterThan(1);
    res.body.steps.forEach((step: J, i: number) => {
      expect(Object.keys(step)).toEqual([
        "index",
        "type",
        "name",
        "status",
        "started_at",
        "ended_at",
        "summary",
      ]);
      expect(step.index).toBe(i);
      expect(step.status).toBe("completed");
    });
  });

  it("enforces the ids each scope needs", async () => {
    const noRun = await ws("/agent-runs/query", { scope: "run_progress", task_id: sandbox.ids.taskId });
    expect(noRun.status).toBe(422);
    expect(noRun.body.detail.map((d: J) => d.loc)).toEqual([["body", "run_id"]]);
    const noAgent = await ws("/agent-runs/query", { scope: "agent_runs" });
    expect(noAgent.body.detail.map((d: J) => d.loc)).toEqual([["body", "agent_id"]]);
    const limit = await ws("/agent-runs/query", {
      scope: "task_runs",
      task_id: sandbox.ids.taskId,
      limit: 0,
    });
    expect(limit.body.detail[0]).toMatchObject({
      type: "greater_than_equal",
      loc: ["body", "limit"],
      ctx: { ge: 1 },
    });
    const wrongTask = await ws("/agent-runs/query", {
      scope: "run_progress",
      task_id: sandbox.ids.subtaskId,
      run_id: sandbox.ids.runId,
    });
    expect(wrongTask.status).toBe(404);
    expect(wrongTask.body).toEqual({ detail: "Run not found" });
  });

  it("issues download links that expire 15 minutes after now()", async () => {
    const res = await ws("/attachments/download-url", {
      target: "task",
      task_id: sandbox.ids.taskId,
      attachment_id: sandbox.ids.taskAttachmentId,
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["url", "filename", "content_type", "expires_at"]);
    expect(res.body.url).toMatch(
      new RegExp(`^${sandbox.url}/files/${sandbox.ids.taskAttachmentId}\\?token=[0-9a-f]+$`),
    );
    expect(res.body.expires_at).toBe("2026-02-01T12:15:00.000Z");
    const file = await fetch(res.body.url);
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe(res.body.content_type);
    expect((await file.arrayBuffer()).byteLength).toBeGreaterThan(0);
    const forged = await fetch(`${sandbox.url}/files/${sandbox.ids.taskAttachmentId}?token=00`);
    expect(forged.status).toBe(403);

    const onComment = await ws("/attachments/download-url", {
      target: "comment",
      comment_id: sandbox.ids.commentId,
      attachment_id: sandbox.ids.commentAttachmentId,
    });
    expect(onComment.status).toBe(200);
  });

  it("checks download targets", async () => {
    const noComment = await ws("/attachments/download-url", {
      target: "comment",
      attachment_id: sandbox.ids.commentAttachmentId,
    });
    expect(noComment.status).toBe(422);
    expect(noComment.body.detail[0]).toMatchObject({ type: "missing", loc: ["body", "comment_id"] });
    const mismatch = await ws("/attachments/download-url", {
      target: "comment",
      comment_id: sandbox.ids.commentId,
      attachment_id: sandbox.ids.taskAttachmentId,
    });
    expect(mismatch.status).toBe(404);
    expect(mismatch.body).toEqual({ detail: "Attachment not found" });
    const badTarget = await ws("/attachments/download-url", { target: "page", attachment_id: "x" });
    expect(badTarget.body.detail.map((d: J) => d.type)).toEqual(["literal_error", "uuid_parsing"]);
  });
});

describe("analytics API", () => {
  it("lists the projects each key may read", async () => {
    const main = await geo("/projects", {});
    expect(main.status).toBe(200);
    expect(main.body.data.map((p: J) => p.id)).toEqual(sandbox.ids.analyticsProjects);
    expect(Object.keys(main.body.data[0])).toEqual(["id", "name", "url", "created_at"]);
    const single = await geo("/projects", {}, SANDBOX_SINGLE_PROJECT_API_KEY);
    expect(single.body.data.map((p: J) => p.id)).toEqual([sandbox.ids.singleKeyAnalyticsProjectId]);
    const extra = await geo("/projects", { foo: 1 });
    expect(extra.status).toBe(422);
  });

  it("checks project access and presence", async () => {
    const forbidden = await geo("/prompts", { project_id: sandbox.ids.forbiddenAnalyticsProjectId });
    expect(forbidden.status).toBe(403);
    const otherUser = await geo("/prompts", { project_id: sandbox.ids.singleKeyAnalyticsProjectId });
    expect(otherUser.status).toBe(403);
    const mine = await geo(
      "/prompts",
      { project_id: sandbox.ids.singleKeyAnalyticsProjectId },
      SANDBOX_SINGLE_PROJECT_API_KEY,
    );
    expect(mine.status).toBe(200);
    const missing = await geo("/prompts", {});
    expect(missing.body.detail).toEqual([
      { type: "missing", loc: ["body", "project_id"], msg: "Field required", input: {} },
    ]);
  });

  it("lists prompts with optional metrics, pagination and sorting", async () => {
    const all = await listing("/prompts");
    expect(all.status).toBe(200);
    expect(all.body.info.total_rows).toBe(40);
    expect(all.body.data).toHaveLength(40);
    expect(Object.keys(all.body.data[0])).toEqual([
      "id",
      "name",
      "created_date",
      "intent",
      "source",
      "search_volume",
    ]);
    expect(all.body.info.query).toMatchObject({
      metrics: [],
      start_date: null,
      pagination: null,
      filters: {},
    });

    const paged = await listing("/prompts", {
      pagination: {},
      order_by: [{ field: "search_volume", order: "desc" }],
    });
    expect(paged.body.data).toHaveLength(10);
    const volumes = paged.body.data.map((p: J) => p.search_volume);
    expect(volumes).toEqual([...volumes].sort((a, b) => b - a));
    expect(paged.body.info.query.pagination).toEqual({ limit: 10, offset: 0 });

    const withMetrics = await listing("/prompts", {
      metrics: ["answers_count", "answers"],
      start_date: "2026-01-01",
      end_date: "2026-01-10",
      pagination: { limit: 3, offset: 2 },
    });
    const row = withMetrics.body.data[0];
    expect(row.answers_count).toBe(row.answers.length);
    for (const answer of row.answers) {
      expect(Object.keys(answer)).toEqual(["date", "answer", "model"]);
      expect(answer.date >= "2026-01-01" && answer.date < "2026-01-11").toBe(true);
    }
    expect(withMetrics.body.info.query).toMatchObject({
      start_date: "2026-01-01T00:00:00Z",
      end_date: "2026-01-10T23:59:59.999Z",
      pagination: { limit: 3, offset: 2 },
    });
    const aliased = await listing("/prompts", {
      metrics: ["answers_count", "answers"],
      current_from: "2026-01-01",
      current_to: "2026-01-10",
      pagination: { limit: 3, offset: 2 },
    });
    expect(aliased.body).toEqual(withMetrics.body);
  });

  it("adds previous_ values for a comparison range, and only with both bounds", async () => {
    const res = await listing("/topics", {
      metrics: ["prompts_count", "prompts"],
      previous_from: "2025-11-01",
      previous_to: "2025-11-30",
    });
    expect(res.status).toBe(200);
    for (const row of res.body.data) {
      expect(Object.keys(row)).toEqual([
        "id",
        "name",
        "created_date",
        "prompts_count",
        "prompts",
        "previous_prompts_count",
      ]);
      expect(row.previous_prompts_count).toBeLessThanOrEqual(row.prompts_count);
    }
    expect(res.body.info.query.comparison_end_date).toBe("2025-11-30T23:59:59.999Z");
    const half = await listing("/topics", { comparison_start_date: "2025-11-01" });
    expect(half.status).toBe(422);
    expect(half.body.detail[0]).toMatchObject({ type: "missing", loc: ["body", "comparison_end_date"] });
  });

  it("validates metrics, sort fields and filter names per endpoint", async () => {
    const metric = await listing("/tags", { metrics: ["answers_count"] });
    expect(metric.body.detail[0]).toMatchObject({ type: "literal_error", loc: ["body", "metrics", 0] });
    const sort = await listing("/models", { order_by: [{ field: "url", order: "asc" }] });
    expect(sort.body.detail[0]).toMatchObject({
      type: "literal_error",
      loc: ["body", "order_by", 0, "field"],
    });
    const disabled = await listing("/tags", {
      filters: { disabled: { condition: "AND", items: [{ value: true }] } },
    });
    expect(disabled.status).toBe(422);
    expect(disabled.body.detail[0]).toMatchObject({
      type: "extra_forbidden",
      loc: ["body", "filters", "disabled"],
    });
    const operator = await listing("/prompts", {
      filters: { topics: { items: [{ operator: "near", value: "x" }] } },
    });
    expect(operator.body.detail[0].loc).toEqual(["body", "filters", "topics", "items", 0, "operator"]);
    const citationMetrics = await listing("/citations", { metrics: ["x"] });
    expect(citationMetrics.body.detail[0]).toMatchObject({
      type: "extra_forbidden",
      loc: ["body", "metrics"],
    });
  });

  it("applies filters", async () => {
    const topics = await listing("/topics");
    const topic = topics.body.data[0];
    const byTopic = await listing("/prompts", {
      filters: { topics: { condition: "OR", items: [{ value: topic.name }] } },
    });
    const topicPrompts = await listing("/topics", {
      metrics: ["prompts"],
      filters: { topics: { items: [{ value: topic.id }] } },
    });
    expect(topicPrompts.body.data).toHaveLength(1);
    expect(byTopic.body.data.map((p: J) => p.name).sort()).toEqual(
      [...topicPrompts.body.data[0].prompts].sort(),
    );

    const price = await listing("/keywords", {
      filters: { theme: { condition: "AND", items: [{ value: "price" }] } },
    });
    expect(price.body.data.length).toBeGreaterThan(0);
    expect(price.body.data.every((k: J) => k.theme === "Price")).toBe(true);

    const advanced = await listing("/citations", {
      filters: {
        advanced_filters: {
          join: "or",
          conditions: [
            { field: "domain", operator: "contains", value: "wikipedia" },
            { field: "domain", operator: "contains", value: "reddit" },
          ],
        },
      },
    });
    expect(advanced.body.data.length).toBeGreaterThan(0);
    expect(advanced.body.data.every((c: J) => /wikipedia|reddit/.test(c.domain))).toBe(true);
  });

  it("serves the other listings with their row shapes", async () => {
    const models = await listing("/models", {
      metrics: ["visibility_score", "mentions_count", "share_of_voice"],
      order_by: [{ field: "visibility_score", order: "desc" }],
    });
    expect(models.body.data).toHaveLength(5);
    expect(Object.keys(models.body.data[0])).toEqual([
      "id",
      "name",
      "provider",
      "visibility_score",
      "mentions_count",
      "share_of_voice",
    ]);
    const websites = await listing("/websites", { metrics: ["mentions_count"], pagination: { limit: 100 } });
    expect(websites.body.data).toHaveLength(15);
    expect(Object.keys(websites.body.data[0])).toEqual([
      "id",
      "name",
      "url",
      "website_type",
      "mentions_count",
    ]);
    expect(websites.body.data.filter((w: J) => w.website_type === "SELF")).toHaveLength(1);
    const citations = await listing("/citations", { pagination: { limit: 100 } });
    expect(citations.body.info.total_rows).toBe(60);
    expect(Object.keys(citations.body.data[0])).toEqual([
      "id",
      "url",
      "domain",
      "path",
      "title",
      "model",
      "first_seen",
    ]);
    const keywords = await listing("/keywords", {
      metrics: ["website_count", "subtheme_count", "theme_count"],
    });
    expect(keywords.body.info.total_rows).toBe(50);
    expect(Object.keys(keywords.body.data[0])).toEqual([
      "id",
      "keyword",
      "theme",
      "subtheme",
      "website_count",
      "subtheme_count",
      "theme_count",
    ]);
    const tags = await listing("/tags", {
      metrics: ["query_count", "competitor_count", "queries", "competitors"],
    });
    expect(tags.body.info.total_rows).toBe(12);
    const tag = tags.body.data[0];
    expect(tag.query_count).toBe(tag.queries.length);
    expect(tag.competitor_count).toBe(tag.competitors.length);
  });

  it("aggregates the sentiment report", async () => {
    const total = await geo("/v2/geo/reports/sentiments", { project_id: sandbox.analyticsProjectId });
    expect(total.status).toBe(200);
    expect(total.body.data).toHaveLength(1);
    const overall = total.body.data[0].total_keyword_occurrences;
    const byTopic = await geo("/v2/geo/reports/sentiments", {
      project_id: sandbox.analyticsProjectId,
      dimensions: ["topic"],
      measures: ["total_keyword_occurrences", "positive_share"],
    });
    expect(byTopic.body.data.reduce((sum: number, r: J) => sum + r.total_keyword_occurrences, 0)).toBe(
      overall,
    );
    expect(Object.keys(byTopic.body.data[0])).toEqual([
      "topic",
      "total_keyword_occurrences",
      "positive_share",
    ]);

    const weekly = await geo("/v2/geo/reports/sentiments", {
      project_id: sandbox.analyticsProjectId,
      dimensions: ["date", "model"],
      date_aggregation_interval: "week",
      website_type: "SELF",
      start_date: "2026-01-01",
      comparison_start_date: "2025-12-01",
      comparison_end_date: "2025-12-31",
      filters: { status: { condition: "AND", items: [{ value: "ACTIVE" }] } },
    });
    expect(weekly.status).toBe(200);
    expect(weekly.body.data[0]).toHaveProperty("previous_total_keyword_occurrences");
    expect(weekly.body.info.query).toMatchObject({ date_aggregation_interval: "week", website_type: "SELF" });

    const bad = await geo("/v2/geo/reports/sentiments", {
      project_id: sandbox.analyticsProjectId,
      metrics: ["x"],
      dimensions: ["planet"],
      measures: ["mood"],
      date_aggregation_interval: "year",
      website_type: "OTHER",
    });
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((d: J) => d.loc)).toEqual([
      ["body", "dimensions", 0],
      ["body", "measures", 0],
      ["body", "date_aggregation_interval"],
      ["body", "website_type"],
      ["body", "metrics"],
    ]);
  });
});
