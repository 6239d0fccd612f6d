// The agent-workspace API (spec: agent-workspace-api.md), one entry per endpoint.
import { z } from "zod";
import { defineEndpoints } from "./definition.js";
import { actorType, guid, lenientArrayOf, lenientObject, openString } from "./schemas.js";

// Routing ids: sent as headers, never in the body.
const workspaceId = guid()
  .optional()
  .describe("Workspace uuid (X-Workspace-Id); default: the key's own workspace or WORKSPACE_ID.");
const projectId = guid()
  .optional()
  .describe(
    "Project uuid from whoami `projects[].id` (X-Project-Id). Default: WORKSPACE_PROJECT_ID, else the only project whoami lists.",
  );
const routing = { project_id: projectId, workspace_id: workspaceId };

const taskShape = {
  id: z.string(),
  project_id: z.string(),
  identifier: z.string(),
  title: z.string(),
  description: z.string(),
  status: z.string(),
  priority: z.string(),
  creator_type: actorType(),
  creator_id: z.string(),
  assignee_type: actorType(),
  assignee_id: z.string(),
  parent_task_id: z.string(),
  page_id: z.string(),
  schedule_id: z.string(),
  due_date: z.string(),
  sort_order: z.number(),
  started_at: z.string(),
  completed_at: z.string(),
  comment_count: z.number(),
  last_comment_at: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  subtask_count: lenientObject({ total: z.number(), completed: z.number() }),
  label_ids: z.array(z.string()),
  relation_ids: z.looseObject({}),
};

const attachmentShape = {
  id: z.string(),
  filename: z.string(),
  content_type: z.string(),
  size_bytes: z.number(),
  uploader_type: actorType(),
  uploader_id: z.string(),
  created_at: z.string(),
};

const tasksQueryInput = z
  .strictObject({
    ...routing,
    view: z
      .enum(["list", "counts"])
      .optional()
      .describe("`list`: a cursor page of tasks. `counts`: grouped totals (needs group_by)."),
    query: z
      .strictObject({
        filter: z
          .record(z.string(), z.unknown())
          .optional()
          .describe(
            "Narrows both views on status, priority, assignee, labels, due date and title. The API does not document its keys; sandbox: status, priority, assignee_id, assignee_type (string or array), label_ids, due_date_from, due_date_to, title_contains.",
          ),
        sort: z
          .strictObject({
            sort_by: openString("Field to sort on; seen: created_at.").optional(),
            sort_order: openString("asc or desc (desc seen).").optional(),
          })
          .optional()
          .describe("Order of a list."),
        pagination: z
          .strictObject({
            cursor: z.string().optional().describe("next_cursor of the previous page."),
            page_size: z.int().min(1).max(100).optional().describe("Tasks per page, 1-100; default 50."),
          })
          .optional()
          .describe("Page of a list."),
        include_parents: z
          .boolean()
          .optional()
          .describe("Also return `parents`: parents of this page's tasks not in items. Default false."),
      })
      .optional()
      .describe("Filter, sort and page."),
    group_by: z
      .enum(["status", "priority", "assignee_id", "creator_id", "page_id"])
      .optional()
      .describe("Grouping of view `counts`; required there."),
  })
  .superRefine((args, ctx) => {
    if (args.view === "counts" && args.group_by === undefined) {
      ctx.addIssue({ code: "custom", path: ["group_by"], message: "is required when view is `counts`" });
    }
  });

const RUN_SCOPE_NEEDS = {
  task_runs: ["task_id"],
  agent_runs: ["agent_id"],
  run_progress: ["task_id", "run_id"],
} as const;

const agentRunsQueryInput = z
  .strictObject({
    ...routing,
    scope: z
      .enum(["task_runs", "agent_runs", "run_progress"])
      .describe("task_runs: runs of task_id. agent_runs: runs of agent_id. run_progress: steps of run_id."),
    task_id: guid().optional().describe("Task uuid (tasks_query); for task_runs and run_progress."),
    agent_id: guid()
      .optional()
      .describe(
        "Agent uuid (a task's assignee_id when assignee_type is ai_agent, or a run's agent_id); for agent_runs.",
      ),
    run_id: guid().optional().describe("Run uuid (an `id` from task_runs/agent_runs); for run_progress."),
    cursor: z.string().optional().describe("next_cursor of the previous page (run-list scopes)."),
    limit: z.int().min(1).max(100).optional().describe("Runs per page, 1-100; default 50."),
  })
  .superRefine((args, ctx) => {
    for (const field of RUN_SCOPE_NEEDS[args.scope]) {
      if (args[field] === undefined) {
        ctx.addIssue({ code: "custom", path: [field], message: `is required for scope \`${args.scope}\`` });
      }
    }
  });

const downloadUrlInput = z
  .strictObject({
    ...routing,
    target: z.enum(["task", "comment"]).describe("Where the file is attached."),
    attachment_id: guid().describe("Attachment uuid (a comment's `attachments[].id`, or a task's)."),
    task_id: guid().optional().describe("The task's uuid; required when target is `task`."),
    comment_id: guid()
      .optional()
      .describe("The comment's uuid; required when target is `comment` (forwarded as `comment_id`)."),
  })
  .superRefine((args, ctx) => {
    const needed = args.target === "task" ? "task_id" : "comment_id";
    if (args[needed] === undefined) {
      ctx.addIssue({
        code: "custom",
        path: [needed],
        message: `is required when target is \`${args.target}\``,
      });
    }
  });

export const workspaceEndpoints = defineEndpoints([
  {
    name: "whoami",
    title: "Who am I",
    api: "workspace",
    method: "GET",
    path: "/api/v1/business/whoami",
    projectScoped: false,
    readOnly: true,
    description:
      "The caller's identity, teams and `projects` of the active workspace. Call it first: each `projects[].id` is a project_id for the other workspace tools.",
    input: z.strictObject({ workspace_id: workspaceId }),
    output: lenientObject({ projects: lenientArrayOf({ id: z.string(), name: z.string() }) }),
  },
  {
    name: "tasks_query",
    title: "Query tasks",
    api: "workspace",
    method: "POST",
    path: "/api/v1/business/tasks/query",
    projectScoped: true,
    readOnly: true,
    description:
      "List a project's tasks (view `list`: `items`, `has_more`, `next_cursor`; pass next_cursor as query.pagination.cursor for the next page) or count them (view `counts` with group_by: the total and a breakdown per group). Task status values seen: backlog; priority: urgent.",
    input: tasksQueryInput,
    output: lenientObject({
      items: lenientArrayOf(taskShape),
      has_more: z.boolean(),
      next_cursor: z.string(),
      parents: lenientArrayOf(taskShape),
    }),
  },
  {
    name: "tasks_comments",
    title: "Comment on a task",
    api: "workspace",
    method: "POST",
    path: "/api/v1/business/tasks/comments",
    projectScoped: true,
    readOnly: false,
    description:
      "Add a comment to a task's discussion; returns the new comment. Creates data: each call posts one more comment, so do not repeat a call that succeeded.",
    input: z.strictObject({
      ...routing,
      action: z.literal("create").default("create").describe("Only `create`; the default."),
      task_id: guid().describe("Task uuid (from tasks_query)."),
      body: z.string().nullable().optional().describe("The comment text."),
    }),
    output: lenientObject({
      id: z.string(),
      task_id: z.string(),
      author_type: actorType(),
      author_id: z.string(),
      body: z.string(),
      created_at: z.string(),
      edited_at: z.string(),
      attachments: lenientArrayOf(attachmentShape),
    }),
  },
  {
    name: "agent_runs_query",
    title: "Query agent runs",
    api: "workspace",
    method: "POST",
    path: "/api/v1/business/agent-runs/query",
    projectScoped: true,
    readOnly: true,
    description:
      "Agent-run history of a task or an agent (`items`, `next_cursor`), or the ordered steps of one run (scope run_progress; an array answer comes wrapped as `items`). Run status seen: pending; trigger: task_assigned; failure_reason: iteration_limit.",
    input: agentRunsQueryInput,
    output: lenientObject({ items: z.array(z.unknown()), next_cursor: z.string() }),
  },
  {
    name: "attachments_download_url",
    title: "Attachment download link",
    api: "workspace",
    method: "POST",
    path: "/api/v1/business/attachments/download-url",
    projectScoped: true,
    readOnly: true,
    description:
      "A short-lived presigned `url` (with filename, content_type, expires_at) for a file attached to a task or a comment. The file itself is not returned; fetch the url soon.",
    input: downloadUrlInput,
    output: lenientObject({
      url: z.string(),
      filename: z.string(),
      content_type: z.string(),
      expires_at: z.string(),
    }),
  },
]);
