// The seeded worlds, built once per process and each part only when first needed: the directories (people,
// workspaces, projects) at once, since a sandbox's keys and default projects come from them; the tasks,
// runs and analytics data on the first request (or read of `ids`) that needs them, which is never for a
// `--demo` client that only lists tools.
// Each sandbox gets its own copy of what its handlers write: the tasks (createComment refreshes their
// counters) and the comment lists (it adds to them). Everything else (people, projects, attachments,
// runs, steps, the whole analytics world) no handler writes, so every sandbox shares it. Seeding costs
// tens of milliseconds and megabytes; the copy, well under one.

import type { AnalyticsData } from "./analytics-types.js";
import { type AnalyticsDirectory, seedAnalyticsDirectory, seedAnalyticsFrom } from "./seed-analytics.js";
import { seedWorkspaceDirectory, seedWorkspaceFrom, type WorkspaceDirectory } from "./seed-workspace.js";
import type { Comment, Task, WorkspaceData } from "./types.js";

export const SANDBOX_API_KEY = "sandbox-key";
export const SANDBOX_SINGLE_PROJECT_API_KEY = "sandbox-key-single";

let workspaceDirectory: WorkspaceDirectory | undefined;
let analyticsDirectory: AnalyticsDirectory | undefined;
let seededWorkspace: WorkspaceData | undefined;
let seededAnalytics: AnalyticsData | undefined;

function directories() {
  workspaceDirectory ??= seedWorkspaceDirectory();
  analyticsDirectory ??= seedAnalyticsDirectory(SANDBOX_API_KEY, SANDBOX_SINGLE_PROJECT_API_KEY);
  return { workspace: workspaceDirectory, analytics: analyticsDirectory };
}

/** One sandbox's worlds: the directories at once, the rest on first use. */
export class SandboxWorld {
  readonly workspaceDirectory: WorkspaceDirectory;
  readonly analyticsDirectory: AnalyticsDirectory;
  private ownWorkspace: WorkspaceData | undefined;

  constructor() {
    const { workspace, analytics } = directories();
    this.workspaceDirectory = workspace;
    this.analyticsDirectory = analytics;
  }

  /** The seeded workspace world, with this sandbox's own tasks and comment lists. */
  get workspace(): WorkspaceData {
    seededWorkspace ??= seedWorkspaceFrom(this.workspaceDirectory);
    this.ownWorkspace ??= copyWorkspace(seededWorkspace);
    return this.ownWorkspace;
  }

  /** The seeded analytics world, shared: no handler writes to it. */
  get analytics(): AnalyticsData {
    seededAnalytics ??= seedAnalyticsFrom(this.analyticsDirectory);
    return seededAnalytics;
  }
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
