// Agent runs and their steps for tasks assigned to an AI agent. Completed
// runs (and some failed ones) leave a comment by the agent on the task.

import { EPOCH_MS, instants, iso, isoDate, MINUTE, type Rng, seconds } from "./random.js";
import type {
  AgentRun,
  Comment,
  FailureReason,
  RunStatus,
  RunStep,
  RunTrigger,
  Task,
  User,
  WorkspaceData,
} from "./types.js";

const FAILURES: Record<FailureReason, string> = {
  iteration_limit: "Agent stopped after reaching the limit of 25 iterations",
  timeout: "Run exceeded the 30 minute time limit",
  tool_error: "Tool web_search failed with HTTP 502",
  model_error: "Model provider returned an overloaded error",
};
const TOOL_STEPS = ["read_task", "search_knowledge_base", "web_search", "fetch_page", "update_task"];

const ms = (text: string) => Date.parse(text);

export function seedRuns(
  rng: Rng,
  data: WorkspaceData,
  task: Task,
  agentId: string,
  members: User[],
  isSpecial: boolean,
) {
  const planned: RunStatus[] | null = isSpecial ? ["completed", "failed", "cancelled", "running"] : null;
  const count =
    planned?.length ??
    rng.weighted([
      [0, 15],
      [1, 40],
      [2, 30],
      [3, 15],
    ] as const);
  const open = !["done", "cancelled"].includes(task.status);
  const times = instants(rng, count, ms(task.created_at) + 30 * MINUTE, EPOCH_MS - 40 * MINUTE);
  times.forEach((plannedAt, i) => {
    const last = i === count - 1;
    const status: RunStatus =
      planned?.[i] ??
      rng.weighted<RunStatus>(
        last && open
          ? [
              ["completed", 45],
              ["failed", 15],
              ["cancelled", 5],
              ["running", 20],
              ["pending", 15],
            ]
          : [
              ["completed", 65],
              ["failed", 25],
              ["cancelled", 10],
            ],
      );
    // Unfinished runs are recent: a run "running" for months would look broken.
    const live = status === "running" || status === "pending";
    const createdAt = live ? Math.max(plannedAt, seconds(EPOCH_MS - rng.int(10, 50) * MINUTE)) : plannedAt;
    const trigger: RunTrigger =
      i === 0 && (isSpecial || rng.chance(0.7))
        ? "task_assigned"
        : rng.weighted<RunTrigger>([
            ["comment_mention", 45],
            ["schedule", 20],
            ["manual", 35],
          ]);
    const reason: FailureReason | null =
      status !== "failed"
        ? null
        : isSpecial
          ? "iteration_limit"
          : rng.weighted<FailureReason>([
              ["iteration_limit", 40],
              ["timeout", 20],
              ["tool_error", 25],
              ["model_error", 15],
            ]);
    const id = rng.uuid();
    const started = status === "pending" ? null : seconds(createdAt + rng.int(5, 120) * 1000);
    const ended =
      started === null || status === "running" ? null : seconds(started + rng.int(1, 25) * MINUTE);

    let lastCommentId: string | null = null;
    if (ended !== null && (status === "completed" || (status === "failed" && rng.chance(0.4)))) {
      const comment: Comment = {
        id: rng.uuid(),
        task_id: task.id,
        author_type: "ai_agent",
        author_id: agentId,
        body:
          status === "completed"
            ? "Finished: summary and sources are attached above."
            : "I could not finish this run.",
        created_at: iso(ended),
        edited_at: null,
        attachments: [],
      };
      data.comments.get(task.id)?.push(comment);
      lastCommentId = comment.id;
    }

    const run: AgentRun = {
      id,
      task_id: task.id,
      agent_id: agentId,
      status,
      trigger,
      started_at: started === null ? null : iso(started),
      ended_at: ended === null ? null : iso(ended),
      error_message: reason ? FAILURES[reason] : null,
      failure_reason: reason,
      log_pointer: started === null ? null : `runs/${isoDate(started)}/${id}.jsonl`,
      last_comment_id: lastCommentId,
      cancelled_by_user_id: status === "cancelled" ? rng.pick(members).id : null,
      input_tokens: started === null ? 0 : rng.int(2_000, 90_000),
      output_tokens: started === null ? 0 : rng.int(200, 12_000),
      created_at: iso(createdAt),
      updated_at: iso(ended ?? started ?? createdAt),
    };
    data.runs.push(run);
    data.steps.set(id, seedSteps(rng, run, started, ended));
    if (isSpecial && status === "completed") data.ids.runId = id;
  });
}

function seedSteps(rng: Rng, run: AgentRun, started: number | null, ended: number | null): RunStep[] {
  if (started === null) return [];
  const count = rng.int(2, 7);
  const span = (ended ?? started + count * 20_000) - started;
  const slice = Math.floor(span / count);
  return Array.from({ length: count }, (_, index): RunStep => {
    const last = index === count - 1;
    const postsComment = last && run.last_comment_id !== null;
    const type = postsComment ? "comment" : index % 3 === 1 ? "llm_call" : "tool_call";
    const name = postsComment
      ? "post_comment"
      : type === "llm_call"
        ? "plan_next_action"
        : rng.pick(TOOL_STEPS);
    const status: RunStep["status"] = !last
      ? "completed"
      : run.status === "running"
        ? "running"
        : run.status === "failed"
          ? "failed"
          : run.status === "cancelled"
            ? "cancelled"
            : "completed";
    const from = started + index * slice;
    return {
      index,
      type,
      name,
      status,
      started_at: iso(from),
      ended_at: status === "running" ? null : iso(last && ended !== null ? ended : from + slice),
      summary:
        status === "failed"
          ? (run.error_message ?? "Step failed")
          : `${name.replaceAll("_", " ")}: ${status}`,
    };
  });
}
