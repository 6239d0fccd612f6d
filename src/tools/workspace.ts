// The agent-workspace API (spec: agent-workspace-api.md), one entry per endpoint.
import { z } from "zod";
import { defineEndpoints } from "./definition.js";
import { guid, openString, outputObject } from "./schemas.js";

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

// Output fields as text (see outputObject): a client never rejects an answer for a field's type.
const TASK =
  "id, project_id, parent_task_id, page_id, schedule_id (uuids); identifier, title, description, status, priority, creator_type, creator_id, assignee_type, assignee_id; due_date (YYYY-MM-DD); started_at, completed_at, last_comment_at, created_at, updated_at (date-times); sort_order, comment_count (integers); subtask_count {total, completed}; label_ids (uuids); relation_ids (object)";
const ATTACHMENT =
  "id (uuid), filename, content_type, size_bytes (integer), uploader_type, uploader_id (string or null), created_at";
const AGENT_RUN =
  "id, task_id, agent_id, last_comment_id (uuids); status, trigger, failure_reason, error_message, log_pointer, cancelled_by_user_id; started_at, ended_at, created_at, updated_at (date-times); input_tokens, output_tokens (integers)";

const tasksQueryInput = z
  .strictObject({
    ...routing,
    // The API requires view: the default is sent explicitly.
    view: z
      .enum(["list", "counts"])
      .default("list")
      .describe("`list` (the default): a cursor page of tasks. `counts`: grouped totals (needs group_by)."),
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

// The spec does not name the comment's id field: `comment_id` is sent unless the API's 422 names
// another, which comment_id_name then gives.
const downloadUrlShape = {
  ...routing,
  target: openString("Where the file is attached: a task or a comment (`task`, `comment`)."),
  attachment_id: guid().describe("Attachment uuid (a comment's `attachments[].id`, or a task's)."),
  task_id: guid().optional().describe("The task's uuid; required when target is `task`."),
  comment_id: guid()
    .optional()
    .describe(
      "The comment's uuid, for target `comment`; sent as `comment_id` (the API's name for it is not documented).",
    ),
  comment_id_name: z
    .string()
    .optional()
    .describe("Sends comment_id under this name instead, when the API's 422 asks for another field."),
};

const downloadUrlInput = z
  .strictObject(downloadUrlShape)
  .superRefine((args, ctx) => {
    if (args.target === "task" && args.task_id === undefined) {
      ctx.addIssue({ code: "custom", path: ["task_id"], message: "is required when target is `task`" });
    }
    if (args.comment_id_name !== undefined && args.comment_id === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["comment_id"],
        message: "is needed: comment_id_name only renames it",
      });
    }
    if (args.comment_id_name !== undefined && Object.hasOwn(downloadUrlShape, args.comment_id_name)) {
      ctx.addIssue({
        code: "custom",
        path: ["comment_id_name"],
        message: "names an argument of this tool; give the field name the API's 422 asked for",
      });
    }
  })
  .overwrite(({ comment_id_name, ...args }) => {
    if (comment_id_name === undefined || args.comment_id === undefined) return args;
    const { comment_id, ...rest } = args;
    return { ...rest, [comment_id_name]: comment_id } as typeof args;
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
    output: outputObject({ projects: "Projects: id (uuid), name." }),
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
    output: outputObject({
      items: `Tasks (view list): ${TASK}.`,
      has_more: "boolean",
      next_cursor: "string",
      parents: "Tasks, as items: parents of this page's items not among them (include_parents).",
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
    output: outputObject({
      id: "uuid",
      task_id: "uuid",
      author_type: "human, ai_agent or system",
      author_id: "string or null",
      body: "string",
      created_at: "date-time",
      edited_at: "date-time or null",
      attachments: `Attachments: ${ATTACHMENT}.`,
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
    output: outputObject({
      items: `Runs: ${AGENT_RUN}. For run_progress: the run's steps in order.`,
      next_cursor: "string",
    }),
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
      "A short-lived presigned `url` (with filename, content_type, expires_at) for a file attached to a task or a comment. The file itself is not returned; fetch the url soon. For a comment, the API's name for the comment's id is not documented: comment_id is sent, and a 422 says what it needs instead.",
    input: downloadUrlInput,
    fieldHint: (field) =>
      field === "comment_id"
        ? "send the comment's uuid as comment_id"
        : Object.hasOwn(downloadUrlShape, field)
          ? undefined
          : `not an argument of this tool; if it is the comment's id, send comment_id with comment_id_name: "${field.slice(0, 40)}"`,
    output: outputObject({
      url: "string (presigned link)",
      filename: "string",
      content_type: "string",
      expires_at: "date-time",
    }),
  },
]);
