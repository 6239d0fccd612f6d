// The sandbox over real sockets. Comments, agent runs and attachment downloads, and the counters they move.
import { describe, expect, it } from "vitest";
import type { Sandbox } from "../../src/sandbox/index.js";
import { type J, RUN_FIELDS, useFixedSandbox, walkTasks, ws } from "./requests.js";

let sandbox: Sandbox;
useFixedSandbox((started) => {
  sandbox = started;
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
