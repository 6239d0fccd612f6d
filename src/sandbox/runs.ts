// POST /api/v1/business/agent-runs/query
//
// scope task_runs    needs task_id           -> { items: AgentRun[], next_cursor }
// scope agent_runs   needs agent_id          -> same; only runs on tasks of the X-Project-Id project
// scope run_progress needs task_id + run_id  -> { run_id, status, steps: RunStep[] }
// Ids a scope does not need are accepted and ignored. Lists are newest first.

import { type Ctx, decodeCursor, encodeCursor, queryHash } from "./context.js";
import {
  INVALID,
  type Issue,
  int,
  missing,
  notFound,
  obj,
  oneOf,
  opt,
  reject,
  req,
  str,
  uuid,
} from "./validate.js";
import { projectScope, projectTask } from "./workspace.js";

const SCOPES = ["task_runs", "agent_runs", "run_progress"] as const;
const NEEDS: Record<(typeof SCOPES)[number], Array<"task_id" | "agent_id" | "run_id">> = {
  task_runs: ["task_id"],
  agent_runs: ["agent_id"],
  run_progress: ["task_id", "run_id"],
};

const bodyCheck = obj({
  scope: req(oneOf(SCOPES)),
  task_id: opt(uuid),
  agent_id: opt(uuid),
  run_id: opt(uuid),
  cursor: opt(str()),
  limit: opt(int({ ge: 1, le: 100 })),
});

export function queryRuns(ctx: Ctx): unknown {
  const { workspace, project, body } = projectScope(ctx, bodyCheck);
  const data = ctx.state.workspace;
  const absent = NEEDS[body.scope].filter((field) => body[field] === undefined);
  if (absent.length > 0) {
    const input = (ctx.body as { value: unknown }).value;
    reject(absent.map((field) => missing(["body", field], input)));
  }

  if (body.scope === "run_progress") {
    const task = projectTask(ctx, project, body.task_id!);
    const run = data.runs.find((r) => r.id === body.run_id);
    if (!run || run.task_id !== task.id) notFound("Run");
    return { run_id: run.id, status: run.status, steps: data.steps.get(run.id) ?? [] };
  }

  let runs = data.runs;
  if (body.scope === "task_runs") {
    const task = projectTask(ctx, project, body.task_id!);
    runs = runs.filter((r) => r.task_id === task.id);
  } else {
    if (!workspace.agents.some((a) => a.id === body.agent_id)) notFound("Agent");
    runs = runs.filter(
      (r) => r.agent_id === body.agent_id && data.tasks.get(r.task_id)?.project_id === project.id,
    );
  }

  const hash = queryHash({
    project: project.id,
    scope: body.scope,
    task: body.task_id,
    agent: body.agent_id,
  });
  const issues: Issue[] = [];
  const offset = body.cursor === undefined ? 0 : decodeCursor(body.cursor, hash, ["body", "cursor"], issues);
  if (offset === INVALID) reject(issues);
  const limit = body.limit ?? 50;
  const items = runs.slice(offset, offset + limit);
  const more = offset + limit < runs.length;
  return { items, next_cursor: more ? encodeCursor(offset + limit, hash) : null };
}
