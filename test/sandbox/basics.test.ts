// The sandbox over real sockets. The sandbox's handles, keys and workspace scoping: what each key may see.
import { describe, expect, it } from "vitest";
import {
  SANDBOX_API_KEY,
  SANDBOX_SINGLE_PROJECT_API_KEY,
  type Sandbox,
  startSandbox,
} from "../../src/sandbox/index.js";
import { geo, type J, listing, useFixedSandbox, ws } from "./requests.js";

let sandbox: Sandbox;
useFixedSandbox((started) => {
  sandbox = started;
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

  it("keeps a sandbox's writes to itself: sandboxes started before and after see the seeded world", async () => {
    const post = async (target: Sandbox, path: string, body: unknown): Promise<J> => {
      const res = await fetch(`${target.url}/api/v1/business${path}`, {
        method: "POST",
        headers: { "x-api-key": SANDBOX_API_KEY, "x-project-id": target.workspaceProjectId },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(200);
      return res.json();
    };
    const list = { view: "list", query: { sort: { sort_order: "asc" }, pagination: { page_size: 100 } } };
    const comment = { action: "create", task_id: sandbox.ids.taskId, body: "Only here" };
    const taskIn = (page: J) => page.items.find((t: J) => t.id === sandbox.ids.taskId);
    const seeded = (await ws("/tasks/query", list)).body;
    const before = await startSandbox();
    const writer = await startSandbox();
    try {
      const written = await post(writer, "/tasks/comments", comment);
      expect(taskIn(await post(writer, "/tasks/query", list))).toMatchObject({
        comment_count: taskIn(seeded).comment_count + 1,
        last_comment_at: written.created_at,
      });
      const after = await startSandbox();
      try {
        expect(await post(before, "/tasks/query", list)).toEqual(seeded);
        expect(await post(after, "/tasks/query", list)).toEqual(seeded);
        // The same write in another sandbox counts once: the writer's comment list is its own.
        await post(after, "/tasks/comments", comment);
        expect(taskIn(await post(after, "/tasks/query", list)).comment_count).toBe(
          taskIn(seeded).comment_count + 1,
        );
      } finally {
        await after.close();
      }
    } finally {
      await Promise.all([before.close(), writer.close()]);
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
