// Shapes of the seeded agent-workspace world. Wire objects (Task, Comment,
// Attachment, AgentRun, RunStep) are stored exactly as they are served.

export type ActorType = "human" | "ai_agent" | "system";
export const ACTOR_TYPES = ["human", "ai_agent", "system"] as const;

export const TASK_STATUSES = ["backlog", "todo", "in_progress", "in_review", "done", "cancelled"] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
export const TASK_PRIORITIES = ["urgent", "high", "medium", "low", "none"] as const;
export type TaskPriority = (typeof TASK_PRIORITIES)[number];

export const RUN_STATUSES = ["pending", "running", "completed", "failed", "cancelled"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export type RunTrigger = "task_assigned" | "comment_mention" | "schedule" | "manual";
export type FailureReason = "iteration_limit" | "timeout" | "tool_error" | "model_error";

export interface User {
  id: string;
  name: string;
  email: string;
}

export interface Agent {
  id: string;
  name: string;
}

export interface Team {
  id: string;
  name: string;
  memberIds: string[];
}

export interface Project {
  id: string;
  name: string;
  identifier_prefix: string;
  workspaceId: string;
  /** Users who can see the project; keys of other users get 403. */
  memberIds: string[];
}

export interface Workspace {
  id: string;
  name: string;
  memberIds: string[];
  teams: Team[];
  projects: Project[];
  agents: Agent[];
  labelIds: string[];
}

export interface Task {
  id: string;
  project_id: string;
  identifier: string;
  title: string;
  description: string;
  status: TaskStatus;
  priority: TaskPriority;
  creator_type: ActorType;
  creator_id: string;
  assignee_type: ActorType | null;
  assignee_id: string | null;
  parent_task_id: string | null;
  page_id: string | null;
  schedule_id: string | null;
  due_date: string | null;
  sort_order: number;
  started_at: string | null;
  completed_at: string | null;
  comment_count: number;
  last_comment_at: string | null;
  created_at: string;
  updated_at: string;
  subtask_count: { total: number; completed: number };
  label_ids: string[];
  relation_ids: Record<string, string[]>;
}

export interface Attachment {
  id: string;
  filename: string;
  content_type: string;
  size_bytes: number;
  uploader_type: ActorType;
  uploader_id: string | null;
  created_at: string;
}

export interface Comment {
  id: string;
  task_id: string;
  author_type: ActorType;
  author_id: string | null;
  body: string;
  created_at: string;
  edited_at: string | null;
  attachments: Attachment[];
}

export interface AgentRun {
  id: string;
  task_id: string;
  agent_id: string;
  status: RunStatus;
  trigger: RunTrigger;
  started_at: string | null;
  ended_at: string | null;
  error_message: string | null;
  failure_reason: FailureReason | null;
  log_pointer: string | null;
  last_comment_id: string | null;
  cancelled_by_user_id: string | null;
  input_tokens: number;
  output_tokens: number;
  created_at: string;
  updated_at: string;
}

export interface RunStep {
  index: number;
  type: "tool_call" | "llm_call" | "comment";
  name: string;
  status: "completed" | "running" | "failed" | "cancelled";
  started_at: string;
  ended_at: string | null;
  summary: string;
}

/** Which task of a project gets guaranteed comments, files, subtasks and runs. */
export interface SpecialTask {
  index: number;
  subtaskIndexes: number[];
}

/** Well-known ids the tests (and the demo) can rely on. */
export interface WorkspaceIds {
  mainUserId: string;
  singleUserId: string;
  workspaceId: string;
  otherWorkspaceId: string;
  workspaceProjects: string[];
  forbiddenWorkspaceProjectId: string;
  singleKeyWorkspaceProjectId: string;
  taskId: string;
  subtaskId: string;
  agentId: string;
  runId: string;
  taskAttachmentId: string;
  commentId: string;
  commentAttachmentId: string;
  /** The Inbox project's first task (seed-hostile.ts), its failed run and its attachment. */
  inboxTaskId: string;
  inboxRunId: string;
  inboxAttachmentId: string;
}

export interface WorkspaceData {
  users: User[];
  workspaces: Workspace[];
  projects: Map<string, Project>;
  /** Tasks per project, in creation order. */
  tasksByProject: Map<string, Task[]>;
  tasks: Map<string, Task>;
  comments: Map<string, Comment[]>;
  taskAttachments: Map<string, Attachment[]>;
  /** All runs, newest first. */
  runs: AgentRun[];
  steps: Map<string, RunStep[]>;
  ids: WorkspaceIds;
}
