// Task generation for one seeded project: titles, statuses, priorities,
// people, dates, parent/subtask links and task relations.

import { DAY, EPOCH_MS, HOUR, iso, isoDate, type Rng, seconds } from "./random.js";
import type {
  ActorType,
  Project,
  SpecialTask,
  Task,
  TaskPriority,
  TaskStatus,
  User,
  Workspace,
} from "./types.js";

const VERBS = [
  "Draft",
  "Review",
  "Audit",
  "Update",
  "Fix",
  "Publish",
  "Research",
  "Analyze",
  "Plan",
  "Refresh",
];
const SUBJECTS: Record<string, string[]> = {
  GRO: [
    "landing page copy",
    "pricing page FAQ",
    "onboarding email sequence",
    "blog post on AI search visibility",
    "competitor citation report",
    "Q1 content calendar",
    "product comparison table",
    "webinar follow-up",
    "case study with Globex",
    "newsletter for February",
    "keyword clusters for integrations",
    "social launch thread",
  ],
  PLT: [
    "API rate limiter",
    "nightly export job",
    "webhook retries",
    "search index mapping",
    "SSO configuration",
    "billing sync",
    "audit log retention",
    "staging database",
  ],
  FIN: ["invoice reconciliation", "vendor contracts", "budget forecast", "expense policy"],
  OPS: ["on-call rotation", "incident runbook", "status page", "backup verification", "capacity plan"],
};

const STATUS_WEIGHTS: Array<readonly [TaskStatus, number]> = [
  ["backlog", 18],
  ["todo", 22],
  ["in_progress", 16],
  ["in_review", 9],
  ["done", 28],
  ["cancelled", 7],
];
const PRIORITY_WEIGHTS: Array<readonly [TaskPriority, number]> = [
  ["urgent", 7],
  ["high", 20],
  ["medium", 35],
  ["low", 23],
  ["none", 15],
];

export interface ProjectPlan {
  workspace: Workspace;
  project: Project;
  count: number;
  special?: SpecialTask;
}

export function seedTasks(rng: Rng, plan: ProjectPlan, users: User[]): Task[] {
  const { project, workspace: ws, count, special } = plan;
  const members = users.filter((u) => project.memberIds.includes(u.id));
  const pages = Array.from({ length: 6 }, () => rng.uuid());
  const schedules = Array.from({ length: 2 }, () => rng.uuid());
  const subjects = SUBJECTS[project.identifier_prefix] ?? ["misc"];
  const start = EPOCH_MS - 200 * DAY;
  const step = (200 * DAY - 12 * HOUR) / count;
  const tasks: Task[] = [];
  const topLevel: Task[] = [];

  for (let i = 0; i < count; i++) {
    const created = seconds(start + i * step + rng.float() * (step / 2));
    const isSpecial = special?.index === i;
    const forcedChild = special?.subtaskIndexes.includes(i) ?? false;
    let parent: Task | null = null;
    if (forcedChild) parent = tasks[special!.index] ?? null;
    else if (!isSpecial && i > 10 && rng.chance(0.22)) parent = rng.pick(topLevel);

    const status = isSpecial ? "in_progress" : rng.weighted(STATUS_WEIGHTS);
    const priority = isSpecial ? "high" : rng.weighted(PRIORITY_WEIGHTS);
    const creatorKind = rng.weighted<ActorType>([
      ["human", 80],
      ["ai_agent", 12],
      ["system", 8],
    ]);
    const creatorId =
      creatorKind === "human"
        ? rng.pick(members).id
        : creatorKind === "ai_agent"
          ? rng.pick(ws.agents).id
          : "system";
    const assigneeKind = isSpecial
      ? "ai_agent"
      : rng.weighted<ActorType | null>([
          ["human", 50],
          ["ai_agent", 28],
          [null, 22],
        ]);
    const assigneeId = isSpecial
      ? ws.agents[0]!.id
      : assigneeKind === "human"
        ? rng.pick(members).id
        : assigneeKind === "ai_agent"
          ? rng.pick(ws.agents).id
          : null;
    const started = ["in_progress", "in_review", "done"].includes(status)
      ? Math.min(seconds(created + rng.int(1, 72) * HOUR), EPOCH_MS - 3 * HOUR)
      : null;
    const completed =
      status === "done" && started !== null
        ? Math.min(seconds(started + rng.int(2, 240) * HOUR), EPOCH_MS - 2 * HOUR)
        : null;
    const subject = rng.pick(subjects);
    const title = parent
      ? `${rng.pick(VERBS)} ${subject} (part of ${parent.identifier})`
      : `${rng.pick(VERBS)} ${subject}`;
    const dueDate = isSpecial || rng.chance(0.7) ? isoDate(created + rng.int(3, 60) * DAY) : null;
    const labelCount = isSpecial
      ? 2
      : rng.weighted([
          [0, 30],
          [1, 40],
          [2, 20],
          [3, 10],
        ] as const);

    const task: Task = {
      id: rng.uuid(),
      project_id: project.id,
      identifier: `${project.identifier_prefix}-${i + 1}`,
      title,
      description: `${title}. Context: keep ${project.name.toLowerCase()} goals in mind; acceptance criteria are listed in the linked page.`,
      status,
      priority,
      creator_type: creatorKind,
      creator_id: creatorId,
      assignee_type: assigneeKind,
      assignee_id: assigneeId,
      parent_task_id: parent?.id ?? null,
      page_id: rng.chance(0.4) ? rng.pick(pages) : null,
      schedule_id: creatorKind === "system" ? rng.pick(schedules) : null,
      due_date: dueDate,
      sort_order: rng.int(0, 999_999),
      started_at: started === null ? null : iso(started),
      completed_at: completed === null ? null : iso(completed),
      comment_count: 0,
      last_comment_at: null,
      created_at: iso(created),
      updated_at: iso(created),
      subtask_count: { total: 0, completed: 0 },
      label_ids: rng.sample(ws.labelIds, labelCount),
      relation_ids: {},
    };
    tasks.push(task);
    if (!parent && !forcedChild) topLevel.push(task);
  }

  // A few blocking / related links, always recorded on both ends.
  for (const task of tasks) {
    if (!rng.chance(0.08)) continue;
    const other = rng.pick(tasks);
    const linked = Object.values(task.relation_ids).some((ids) => ids.includes(other.id));
    if (other.id === task.id || linked) continue;
    const [mine, theirs] = rng.chance(0.6) ? ["blocks", "blocked_by"] : ["relates_to", "relates_to"];
    task.relation_ids[mine] = [...(task.relation_ids[mine] ?? []), other.id];
    other.relation_ids[theirs] = [...(other.relation_ids[theirs] ?? []), task.id];
  }
  return tasks;
}
