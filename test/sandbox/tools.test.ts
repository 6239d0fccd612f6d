// The tools against the sandbox as a real upstream: what an assistant does over a session, and what
// the service enforces coming back as results it can act on.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SANDBOX_SINGLE_PROJECT_API_KEY, type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { type InMemoryHarness, sandboxSettings, startInMemory, textOf } from "../helpers.js";

interface TaskPage {
  items: { id: string; status: string }[];
  has_more: boolean;
  next_cursor: string | null;
}

describe("tools against the sandbox", () => {
  let sandbox: Sandbox;
  let mcp: InMemoryHarness;

  beforeAll(async () => {
    sandbox = await startSandbox({ record: true });
    mcp = await startInMemory(sandboxSettings(sandbox));
  });
  afterAll(async () => {
    await mcp.close();
    await sandbox.close();
  });

  it("tasks_query walks every task of the project once, following next_cursor", async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 60; page++) {
      const pagination = cursor ? { page_size: 30, cursor } : { page_size: 30 };
      const result = await mcp.call("tasks_query", { view: "list", query: { pagination } });
      const body = result.structuredContent as unknown as TaskPage;
      seen.push(...body.items.map((task) => task.id));
      if (!body.has_more) break;
      cursor = body.next_cursor ?? undefined;
    }
    const counts = await mcp.call("tasks_query", { view: "counts", group_by: "status" });
    const { total } = counts.structuredContent as { total: number };
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBe(total);
    expect(total).toBeGreaterThan(100);
  });

  it("a comment created with tasks_comments is sent once, with action create", async () => {
    sandbox.requests.length = 0;
    const result = await mcp.call("tasks_comments", { task_id: sandbox.ids.taskId, body: "Ship it" });
    expect(result.structuredContent).toMatchObject({ task_id: sandbox.ids.taskId, body: "Ship it" });
    expect(sandbox.requests.map((r) => [r.method, r.path, r.headers["x-project-id"], r.body])).toEqual([
      [
        "POST",
        "/api/v1/business/tasks/comments",
        sandbox.workspaceProjectId,
        { action: "create", task_id: sandbox.ids.taskId, body: "Ship it" },
      ],
    ]);
  });

  it("a project the key cannot see comes back as 403 with the way out", async () => {
    const result = await mcp.call("tasks_query", {
      view: "list",
      project_id: sandbox.ids.forbiddenWorkspaceProjectId,
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(
      /^tasks_query: 403 Forbidden: the key has no access to that project or workspace\. Check project_id with whoami and pass one it lists\./,
    );
    const analytics = await mcp.call("geo_prompts", { project_id: sandbox.ids.forbiddenAnalyticsProjectId });
    expect(textOf(analytics)).toMatch(/^geo_prompts: 403 Forbidden: .* Check project_id with geo_projects/);
  });

  it("what only the service knows comes back as its 422, loc by loc", async () => {
    const result = await mcp.call("tasks_query", { view: "list", query: { sort: { sort_by: "colour" } } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(
      /^tasks_query: 422 Unprocessable: the API rejected the arguments: body\.query\.sort\.sort_by: .+\. Fix them and call again\.$/,
    );
  });

  it("geo_prompts pages with limit/offset and reports total_rows", async () => {
    const first = await mcp.call("geo_prompts", {
      pagination: { limit: 5, offset: 0 },
      order_by: [{ field: "name", order: "asc" }],
    });
    const second = await mcp.call("geo_prompts", {
      pagination: { limit: 5, offset: 5 },
      order_by: [{ field: "name", order: "asc" }],
    });
    const all = await mcp.call("geo_prompts", { order_by: [{ field: "name", order: "asc" }] });
    type Listing = { data: { name: string }[]; info: { total_rows: number } };
    const names = (result: typeof first) =>
      (result.structuredContent as unknown as Listing).data.map((row) => row.name);
    expect([...names(first), ...names(second)]).toEqual(names(all).slice(0, 10));
    expect((first.structuredContent as unknown as Listing).info.total_rows).toBe(names(all).length);
  });

  it("with a key that sees one project, workspace tools use it without being told", async () => {
    const single = await startInMemory({
      workspaceBaseUrl: sandbox.workspaceBaseUrl,
      workspaceApiKey: SANDBOX_SINGLE_PROJECT_API_KEY,
    });
    try {
      sandbox.requests.length = 0;
      const result = await single.call("tasks_query", { view: "counts", group_by: "priority" });
      expect(result.isError).toBeUndefined();
      expect(sandbox.requests.map((r) => [r.path, r.headers["x-project-id"]])).toEqual([
        ["/api/v1/business/whoami", undefined],
        ["/api/v1/business/tasks/query", sandbox.ids.singleKeyWorkspaceProjectId],
      ]);
    } finally {
      await single.close();
    }
  });
});
