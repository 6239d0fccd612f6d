// Agent-workspace endpoints other than the task and run queries: header
// scoping, whoami, comment creation, download links and the file route.

import { type Ctx, parseBody, RawReply } from "./context.js";
import { EPOCH_MS, iso, MINUTE } from "./random.js";
import { refreshTask } from "./seed-activity.js";
import type { Attachment, Comment, Project, Task, Workspace } from "./types.js";
import {
  type Check,
  fail,
  INVALID,
  type Issue,
  missing,
  notFound,
  nullable,
  obj,
  oneOf,
  opt,
  reject,
  req,
  str,
  uuid,
} from "./validate.js";

const NO_WORKSPACE = "API key has no access to this workspace";
const NO_PROJECT = "API key has no access to this project";

/** The key's workspace, honouring (and policing) the X-Workspace-Id override. */
function scopeWorkspace(ctx: Ctx, issues: Issue[]): Workspace | null {
  const raw = ctx.headers["x-workspace-id"];
  const id = raw === undefined ? ctx.account.workspaceId : uuid(raw, ["header", "x-workspace-id"], issues);
  if (id === INVALID) return null;
  if (id !== ctx.account.workspaceId) fail(403, NO_WORKSPACE);
  const ws = ctx.state.workspace.workspaces.find((w) => w.id === id);
  if (!ws) fail(403, NO_WORKSPACE);
  return ws;
}

export interface Scoped<T> {
  workspace: Workspace;
  project: Project;
  body: T;
}

/**
 * Header checks, then access, then the body — the order FastAPI resolves
 * them in: header faults are reported together with body faults, while a 403
 * wins over body faults once the headers are well-formed.
 */
export function projectScope<T>(ctx: Ctx, check: Check<T>): Scoped<T> {
  const issues: Issue[] = [];
  const raw = ctx.headers["x-project-id"];
  const loc = ["header", "x-project-id"];
  let projectId: string | typeof INVALID = INVALID;
  if (raw === undefined) issues.push(missing(loc, null));
  else projectId = uuid(raw, loc, issues);
  const workspaceIdRaw = ctx.headers["x-workspace-id"];
  if (workspaceIdRaw !== undefined) uuid(workspaceIdRaw, ["header", "x-workspace-id"], issues);
  if (issues.length > 0) {
    parseBody(ctx.body, check, issues);
    reject(issues);
  }
  const workspace = scopeWorkspace(ctx, issues)!;
  const project = ctx.state.workspace.projects.get(projectId as string);
  if (!project || project.workspaceId !== workspace.id || !project.memberIds.includes(ctx.account.userId)) {
    fail(403, NO_PROJECT);
  }
  const body = parseBody(ctx.body, check, issues);
  if (body === INVALID) reject(issues);
  return { workspace, project, body };
}

/** A task of the scoped project, or 404 (tasks of other projects are hidden). */
export function projectTask(ctx: Ctx, project: Project, taskId: string): Task {
  const task = ctx.state.workspace.tasks.get(taskId);
  if (!task || task.project_id !== project.id) notFound("Task");
  return task;
}

export function whoami(ctx: Ctx): unknown {
  const issues: Issue[] = [];
  const ws = scopeWorkspace(ctx, issues);
  if (!ws) reject(issues);
  const data = ctx.state.workspace;
  const user = data.users.find((u) => u.id === ctx.account.userId)!;
  return {
    user: { id: user.id, name: user.name, email: user.email },
    workspace: { id: ws.id, name: ws.name },
    teams: ws.teams.filter((t) => t.memberIds.includes(user.id)).map((t) => ({ id: t.id, name: t.name })),
    projects: ws.projects
      .filter((p) => p.memberIds.includes(user.id))
      .map((p) => ({ id: p.id, name: p.name, identifier_prefix: p.identifier_prefix })),
  };
}

const commentBody = obj({
  action: req(oneOf(["create"])),
  task_id: req(uuid),
  body: opt(nullable(str({ max: 50_000 }))),
});

export function createComment(ctx: Ctx): unknown {
  const { project, body } = projectScope(ctx, commentBody);
  const task = projectTask(ctx, project, body.task_id);
  const state = ctx.state;
  // New comments sit just after the seeded world's "now", one minute apart,
  // so they are always the latest and never depend on the real clock.
  state.commentCounter += 1;
  const comment: Comment = {
    id: state.rng.uuid(),
    task_id: task.id,
    author_type: "human",
    author_id: ctx.account.userId,
    body: body.body ?? "",
    created_at: iso(EPOCH_MS + state.commentCounter * MINUTE),
    edited_at: null,
    attachments: [],
  };
  const list = state.workspace.comments.get(task.id) ?? [];
  list.push(comment);
  state.workspace.comments.set(task.id, list);
  refreshTask(state.workspace, task);
  return comment;
}

const downloadBody = obj({
  target: req(oneOf(["task", "comment"])),
  attachment_id: req(uuid),
  task_id: opt(uuid),
  comment_id: opt(uuid),
});

export function downloadUrl(ctx: Ctx): unknown {
  const { project, body } = projectScope(ctx, downloadBody);
  const data = ctx.state.workspace;
  const needed = body.target === "task" ? "task_id" : "comment_id";
  if (body[needed] === undefined) reject([missing(["body", needed], (ctx.body as { value: unknown }).value)]);

  let files: Attachment[];
  if (body.target === "task") {
    const task = projectTask(ctx, project, body.task_id!);
    files = data.taskAttachments.get(task.id) ?? [];
  } else {
    const scopeTask = body.task_id === undefined ? null : projectTask(ctx, project, body.task_id);
    const candidates = scopeTask ? [scopeTask] : (data.tasksByProject.get(project.id) ?? []);
    const comment = candidates
      .flatMap((t) => data.comments.get(t.id) ?? [])
      .find((c) => c.id === body.comment_id);
    if (!comment) notFound("Comment");
    files = comment.attachments;
  }
  const attachment = files.find((a) => a.id === body.attachment_id);
  if (!attachment) notFound("Attachment");

  const token = ctx.state.rng.hex(32);
  const expiresAt = ctx.state.now().getTime() + 15 * MINUTE;
  ctx.state.links.set(token, { attachment, expiresAt });
  return {
    url: `${ctx.state.baseUrl}/files/${attachment.id}?token=${token}`,
    filename: attachment.filename,
    content_type: attachment.content_type,
    expires_at: new Date(expiresAt).toISOString(),
  };
}

/** GET /files/<id>?token=... — the "presigned" link; no API key, token only. */
export function serveFile(ctx: Pick<Ctx, "state" | "path" | "search">): RawReply {
  const id = ctx.path.slice("/files/".length);
  const link = ctx.state.links.get(ctx.search.get("token") ?? "");
  if (!link || link.attachment.id !== id || ctx.state.now().getTime() > link.expiresAt) {
    fail(403, "Invalid or expired download link");
  }
  const { attachment } = link;
  // Deterministic filler of exactly size_bytes bytes.
  const line = `${attachment.filename} ${attachment.id}\n`;
  const payload = Buffer.from(line.repeat(Math.ceil(attachment.size_bytes / line.length))).subarray(
    0,
    attachment.size_bytes,
  );
  return new RawReply(attachment.content_type, payload);
}
