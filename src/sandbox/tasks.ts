// POST /api/v1/business/tasks/query
//
// The spec leaves the filter structure open; the sandbox implements this one:
//   query.filter = {
//     status?:        TaskStatus   | TaskStatus[]     (any of)
//     priority?:      TaskPriority | TaskPriority[]   (any of)
//     assignee_id?:   string | string[]               (any of)
//     assignee_type?: ActorType | ActorType[]         (any of)
//     label_ids?:     uuid[]                          (task has any of them)
//     due_date_from?: "YYYY-MM-DD"                    (inclusive; tasks without due date drop out)
//     due_date_to?:   "YYYY-MM-DD"                    (inclusive; tasks without due date drop out)
//     title_contains?: string                         (case-insensitive)
//   }
// An empty list means "no constraint". Unknown keys are rejected (422).
// Sorting: sort_by in SORT_FIELDS, sort_order asc|desc, default created_at desc;
// priority sorts by importance (desc = urgent first), status by workflow order
// (asc = backlog first); null values always sort last; ties break on id asc.
// Cursors encode the offset plus a hash of project + filter + sort, so a cursor
// replayed against a different query is a 422.

import { type Ctx, decodeCursor, encodeCursor, queryHash } from "./context.js";
import { ACTOR_TYPES, TASK_PRIORITIES, TASK_STATUSES, type Task } from "./types.js";
import {
  arr,
  bool,
  date,
  INVALID,
  type Issue,
  int,
  missing,
  obj,
  oneOf,
  oneOrMany,
  opt,
  reject,
  req,
  str,
  uuid,
  type Valid,
} from "./validate.js";
import { projectScope } from "./workspace.js";

const SORT_FIELDS = [
  "created_at",
  "updated_at",
  "due_date",
  "priority",
  "status",
  "title",
  "sort_order",
] as const;
type SortField = (typeof SORT_FIELDS)[number];
const GROUP_BY = ["status", "priority", "assignee_id", "creator_id", "page_id"] as const;

const filterCheck = obj({
  status: opt(oneOrMany(oneOf(TASK_STATUSES))),
  priority: opt(oneOrMany(oneOf(TASK_PRIORITIES))),
  assignee_id: opt(oneOrMany(str({ min: 1 }))),
  assignee_type: opt(oneOrMany(oneOf(ACTOR_TYPES))),
  label_ids: opt(arr(uuid)),
  due_date_from: opt(date),
  due_date_to: opt(date),
  title_contains: opt(str()),
});

const bodyCheck = obj({
  view: req(oneOf(["list", "counts"])),
  query: opt(
    obj({
      filter: opt(filterCheck),
      sort: opt(obj({ sort_by: opt(oneOf(SORT_FIELDS)), sort_order: opt(oneOf(["asc", "desc"])) })),
      pagination: opt(obj({ cursor: opt(str()), page_size: opt(int({ ge: 1, le: 100 })) })),
      include_parents: opt(bool),
    }),
  ),
  group_by: opt(oneOf(GROUP_BY)),
});

type Filter = Valid<typeof filterCheck>;

function matches(task: Task, f: Filter): boolean {
  const anyOf = (values: string[] | undefined, actual: string | null) =>
    !values || values.length === 0 || (actual !== null && values.includes(actual));
  if (!anyOf(f.status, task.status) || !anyOf(f.priority, task.priority)) return false;
  if (!anyOf(f.assignee_id, task.assignee_id) || !anyOf(f.assignee_type, task.assignee_type)) return false;
  if (f.label_ids && f.label_ids.length > 0 && !task.label_ids.some((l) => f.label_ids!.includes(l)))
    return false;
  if (f.due_date_from !== undefined && (task.due_date === null || task.due_date < f.due_date_from))
    return false;
  if (f.due_date_to !== undefined && (task.due_date === null || task.due_date > f.due_date_to)) return false;
  if (f.title_contains !== undefined && !task.title.toLowerCase().includes(f.title_contains.toLowerCase())) {
    return false;
  }
  return true;
}

const PRIORITY_RANK: Record<string, number> = { none: 0, low: 1, medium: 2, high: 3, urgent: 4 };
const STATUS_RANK: Record<string, number> = Object.fromEntries(TASK_STATUSES.map((s, i) => [s, i]));

function sortKey(task: Task, field: SortField): string | number | null {
  if (field === "priority") return PRIORITY_RANK[task.priority] ?? 0;
  if (field === "status") return STATUS_RANK[task.status] ?? 0;
  if (field === "title") return task.title.toLowerCase();
  return task[field];
}

function compareTasks(field: SortField, direction: "asc" | "desc") {
  const sign = direction === "asc" ? 1 : -1;
  return (a: Task, b: Task): number => {
    const [x, y] = [sortKey(a, field), sortKey(b, field)];
    if (x !== y) {
      if (x === null) return 1;
      if (y === null) return -1;
      return (x < y ? -1 : 1) * sign;
    }
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  };
}

function compareKeys(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return a < b ? -1 : 1;
}

export function queryTasks(ctx: Ctx): unknown {
  const { project, body } = projectScope(ctx, bodyCheck);
  const data = ctx.state.workspace;
  const query = body.query ?? {};
  const filter = query.filter ?? {};
  const tasks = (data.tasksByProject.get(project.id) ?? []).filter((t) => matches(t, filter));

  if (body.view === "counts") {
    const groupBy = body.group_by;
    if (groupBy === undefined)
      reject([missing(["body", "group_by"], (ctx.body as { value: unknown }).value)]);
    const counts = new Map<string | null, number>();
    for (const task of tasks) counts.set(task[groupBy], (counts.get(task[groupBy]) ?? 0) + 1);
    const groups = [...counts]
      .map(([key, count]) => ({ key, count }))
      .sort((a, b) => b.count - a.count || compareKeys(a.key, b.key));
    return { total: tasks.length, group_by: groupBy, groups };
  }

  const sortBy = query.sort?.sort_by ?? "created_at";
  const sortOrder = query.sort?.sort_order ?? "desc";
  const hash = queryHash({ project: project.id, filter, sortBy, sortOrder });
  const issues: Issue[] = [];
  const cursor = query.pagination?.cursor;
  const offset =
    cursor === undefined ? 0 : decodeCursor(cursor, hash, ["body", "query", "pagination", "cursor"], issues);
  if (offset === INVALID) reject(issues);
  const pageSize = query.pagination?.page_size ?? 50;

  const sorted = tasks.sort(compareTasks(sortBy, sortOrder));
  const items = sorted.slice(offset, offset + pageSize);
  const hasMore = offset + pageSize < sorted.length;
  const page: Record<string, unknown> = {
    items,
    has_more: hasMore,
    next_cursor: hasMore ? encodeCursor(offset + pageSize, hash) : null,
  };
  if (query.include_parents) {
    const onPage = new Set(items.map((t) => t.id));
    const parents = new Map<string, Task>();
    for (const item of items) {
      const parentId = item.parent_task_id;
      if (!parentId || onPage.has(parentId) || parents.has(parentId)) continue;
      const parent = data.tasks.get(parentId);
      if (parent) parents.set(parentId, parent);
    }
    page.parents = [...parents.values()];
  }
  return page;
}
