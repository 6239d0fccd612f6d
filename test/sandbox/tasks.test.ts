// The sandbox over real sockets. tasks/query: paging, filters, sorting and counts as the spec describes them.
import { describe, expect, it } from "vitest";
import type { Sandbox } from "../../src/sandbox/index.js";
import { type J, TASK_FIELDS, useFixedSandbox, walkTasks, ws } from "./requests.js";

let sandbox: Sandbox;
useFixedSandbox((started) => {
  sandbox = started;
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
