// Comments and attachments for the seeded tasks (runs: seed-runs.ts), plus
// the derived task counters (comment_count, subtask_count, updated_at).

import { EPOCH_MS, HOUR, instants, iso, MINUTE, type Rng, seconds } from "./random.js";
import { seedRuns } from "./seed-runs.js";
import type {
  ActorType,
  Attachment,
  Comment,
  Project,
  SpecialTask,
  Task,
  User,
  Workspace,
  WorkspaceData,
} from "./types.js";

const FILES: Array<readonly [string, string]> = [
  ["brief.pdf", "application/pdf"],
  ["screenshot.png", "image/png"],
  ["keywords.csv", "text/csv"],
  ["notes.md", "text/markdown"],
  ["export.json", "application/json"],
  ["run-log.txt", "text/plain"],
];
const HUMAN_LINES = [
  "Can we get a first draft by Friday?",
  "Left a few notes inline, mostly wording.",
  "Blocked on legal review, pinging them again.",
  "Looks good to me, ship it.",
  "Numbers updated with last week's export.",
  "@Research Agent please pull the latest competitor citations.",
];
const ms = (text: string) => Date.parse(text);
const COMMENT_COUNTS = [
  [0, 30],
  [1, 20],
  [2, 18],
  [3, 14],
  [4, 9],
  [5, 6],
  [6, 3],
] as const;
const COMMENT_AUTHORS: Array<readonly [ActorType, number]> = [
  ["human", 70],
  ["ai_agent", 20],
  ["system", 10],
];

function attachment(rng: Rng, uploaderType: ActorType, uploaderId: string | null, at: number): Attachment {
  const [filename, contentType] = rng.pick(FILES);
  return {
    id: rng.uuid(),
    filename,
    content_type: contentType,
    size_bytes: rng.int(512, 200_000),
    uploader_type: uploaderType,
    uploader_id: uploaderId,
    created_at: iso(at),
  };
}

export function seedActivity(
  rng: Rng,
  data: WorkspaceData,
  ws: Workspace,
  project: Project,
  users: User[],
  special?: SpecialTask,
): void {
  const members = users.filter((u) => project.memberIds.includes(u.id));
  const tasks = data.tasksByProject.get(project.id) ?? [];
  tasks.forEach((task, index) => {
    const isSpecial = special?.index === index;
    const created = ms(task.created_at);
    const commentCount = isSpecial ? 3 : rng.weighted(COMMENT_COUNTS);
    const comments: Comment[] = instants(rng, commentCount, created + HOUR, EPOCH_MS - 2 * HOUR).map(
      (at, i) => {
        const kind: ActorType = isSpecial ? "human" : rng.weighted(COMMENT_AUTHORS);
        const authorId =
          kind === "human" ? rng.pick(members).id : kind === "ai_agent" ? rng.pick(ws.agents).id : null;
        const fileCount = isSpecial && i === 0 ? 2 : rng.chance(0.12) ? rng.int(1, 2) : 0;
        return {
          id: rng.uuid(),
          task_id: task.id,
          author_type: kind,
          author_id: authorId,
          body: kind === "system" ? `Status changed to ${task.status}` : rng.pick(HUMAN_LINES),
          created_at: iso(at),
          edited_at: rng.chance(0.1) ? iso(at + 5 * MINUTE) : null,
          attachments: Array.from({ length: fileCount }, () => attachment(rng, kind, authorId, at)),
        };
      },
    );
    data.comments.set(task.id, comments);

    const fileCount = isSpecial ? 2 : rng.chance(0.18) ? rng.int(1, 3) : 0;
    const files = Array.from({ length: fileCount }, () =>
      attachment(rng, "human", rng.pick(members).id, seconds(created + rng.int(1, 48) * HOUR)),
    );
    data.taskAttachments.set(task.id, files);

    if (isSpecial) {
      const first = comments[0]!;
      data.ids.commentId = first.id;
      data.ids.commentAttachmentId = first.attachments[0]!.id;
      data.ids.taskAttachmentId = files[0]!.id;
    }
    if (task.assignee_type === "ai_agent" && task.assignee_id) {
      seedRuns(rng, data, task, task.assignee_id, members, isSpecial);
    }
  });
  data.runs.sort((a, b) =>
    a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1,
  );
}

/** Recomputes the counters a task derives from its comments and subtasks. */
export function refreshTask(data: WorkspaceData, task: Task): void {
  const comments = data.comments.get(task.id) ?? [];
  comments.sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));
  task.comment_count = comments.length;
  task.last_comment_at = comments.at(-1)?.created_at ?? null;
  let latest = ms(task.created_at);
  for (const stamp of [task.started_at, task.completed_at, task.last_comment_at, task.updated_at]) {
    if (stamp !== null) latest = Math.max(latest, ms(stamp));
  }
  task.updated_at = iso(latest);
}

export function finalizeTasks(data: WorkspaceData): void {
  for (const task of data.tasks.values()) {
    refreshTask(data, task);
    if (task.parent_task_id) {
      const parent = data.tasks.get(task.parent_task_id);
      if (parent) {
        parent.subtask_count.total += 1;
        if (task.status === "done") parent.subtask_count.completed += 1;
      }
    }
  }
}
