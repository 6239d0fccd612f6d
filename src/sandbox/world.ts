// The seeded worlds, built once per process and handed to each sandbox as a copy of what its handlers
// write: the tasks (createComment refreshes their counters) and the comment lists (it adds to them).
// Everything else (people, projects, attachments, runs, steps, the whole analytics world) no handler
// writes, so every sandbox shares it. Seeding costs tens of milliseconds and megabytes; the copy, well
// under one.

import type { AnalyticsData } from "./analytics-types.js";
import { seedAnalytics } from "./seed-analytics.js";
import { seedWorkspace } from "./seed-workspace.js";
import type { Comment, Task, WorkspaceData } from "./types.js";

export const SANDBOX_API_KEY = "sandbox-key";
export const SANDBOX_SINGLE_PROJECT_API_KEY = "sandbox-key-single";

export interface World {
  workspace: WorkspaceData;
  analytics: AnalyticsData;
}

let pristine: World | undefined;

/** A world for one sandbox: the seeded one, with its own tasks and comment lists. */
export function freshWorld(): World {
  pristine ??= {
    workspace: seedWorkspace(),
    analytics: seedAnalytics(SANDBOX_API_KEY, SANDBOX_SINGLE_PROJECT_API_KEY),
  };
  return { workspace: copyWorkspace(pristine.workspace), analytics: pristine.analytics };
}

/** Copies the tasks and the comment lists, in their order; the rest is shared. */
function copyWorkspace(seeded: WorkspaceData): WorkspaceData {
  const tasks = new Map<string, Task>();
  for (const [id, task] of seeded.tasks) tasks.set(id, { ...task });
  const tasksByProject = new Map<string, Task[]>();
  for (const [id, list] of seeded.tasksByProject) {
    tasksByProject.set(
      id,
      list.map((task) => tasks.get(task.id)!),
    );
  }
  const comments = new Map<string, Comment[]>();
  for (const [id, list] of seeded.comments) comments.set(id, [...list]);
  return { ...seeded, tasks, tasksByProject, comments };
}
