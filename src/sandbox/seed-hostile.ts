// The "Inbox" project of both APIs: text that tries to hide instructions (hostile-text.ts), one task,
// comment, attachment name, run step, prompt answer, keyword and citation per text, beside the benign
// text that must pass unchanged. It draws on random streams of its own, so the rest of the seeded world
// is the same with or without it: its projects are made with the others, its contents after all else.
import type { AnalyticsProject, ProjectData } from "./analytics-types.js";
import { ATTACKS, BENIGN, MARKDOWN } from "./hostile-text.js";
import { DAY, EPOCH_MS, HOUR, iso, isoDate, MINUTE, Rng } from "./random.js";
import { refreshTask } from "./seed-activity.js";
import type { Agent, AgentRun, Project, RunStep, Task, User, Workspace, WorkspaceData } from "./types.js";

/** Every text of the corpus, attacks first. */
const TEXTS: readonly string[] = [
  ...Object.values(ATTACKS),
  ...Object.values(MARKDOWN),
  ...Object.values(BENIGN),
];
const START = EPOCH_MS - 30 * DAY;

/** The Inbox project, its members and the random stream its contents continue from. */
export interface HostileProject {
  rng: Rng;
  project: Project;
  members: User[];
}

/** The workspace's Inbox project, added to `ws`; seedHostileWorkspace fills it. */
export function hostileWorkspaceProject(ws: Workspace, members: User[]): HostileProject {
  const rng = new Rng(0x1b0_c5);
  const project: Project = {
    id: rng.uuid(),
    name: "Inbox",
    identifier_prefix: "INB",
    workspaceId: ws.id,
    memberIds: members.map((member) => member.id),
  };
  ws.projects.push(project);
  return { rng, project, members };
}

export function seedHostileWorkspace(
  data: WorkspaceData,
  { rng, project, members }: HostileProject,
  agent: Agent,
): void {
  data.projects.set(project.id, project);
  const author = members[0] as User;
  const tasks = TEXTS.map((text, i): Task => {
    const created = START + i * HOUR;
    return {
      id: rng.uuid(),
      project_id: project.id,
      identifier: `INB-${i + 1}`,
      title: text,
      description: text,
      status: "todo",
      priority: "medium",
      creator_type: "human",
      creator_id: author.id,
      assignee_type: i === 0 ? "ai_agent" : null,
      assignee_id: i === 0 ? agent.id : null,
      parent_task_id: null,
      page_id: null,
      schedule_id: null,
      due_date: null,
      sort_order: i,
      started_at: null,
      completed_at: null,
      comment_count: 0,
      last_comment_at: null,
      created_at: iso(created),
      updated_at: iso(created),
      subtask_count: { total: 0, completed: 0 },
      label_ids: [],
      relation_ids: {},
    };
  });
  data.tasksByProject.set(project.id, tasks);
  for (const [i, task] of tasks.entries()) {
    const text = TEXTS[i] as string;
    const at = iso(START + i * HOUR + 10 * MINUTE);
    const file = { id: rng.uuid(), filename: text, content_type: "text/plain", size_bytes: 1024 + i };
    data.tasks.set(task.id, task);
    data.taskAttachments.set(task.id, [
      { ...file, uploader_type: "human", uploader_id: author.id, created_at: at },
    ]);
    data.comments.set(task.id, [
      {
        id: rng.uuid(),
        task_id: task.id,
        author_type: "human",
        author_id: author.id,
        body: text,
        created_at: at,
        edited_at: null,
        attachments: [
          { ...file, id: rng.uuid(), uploader_type: "human", uploader_id: author.id, created_at: at },
        ],
      },
    ]);
    refreshTask(data, task);
  }
  const first = tasks[0] as Task;
  const started = START + 2 * HOUR;
  const run: AgentRun = {
    id: rng.uuid(),
    task_id: first.id,
    agent_id: agent.id,
    status: "failed",
    trigger: "task_assigned",
    started_at: iso(started),
    ended_at: iso(started + 20 * MINUTE),
    error_message: ATTACKS.controls,
    failure_reason: "tool_error",
    log_pointer: null,
    last_comment_id: null,
    cancelled_by_user_id: null,
    input_tokens: 4_000,
    output_tokens: 600,
    created_at: iso(started),
    updated_at: iso(started + 20 * MINUTE),
  };
  data.runs.push(run);
  data.runs.sort((a, b) =>
    a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1,
  );
  const steps = TEXTS.map(
    (summary, index): RunStep => ({
      index,
      type: "tool_call",
      name: "fetch_page",
      status: "completed",
      started_at: iso(started + index * 30_000),
      ended_at: iso(started + index * 30_000 + 20_000),
      summary,
    }),
  );
  data.steps.set(run.id, steps);
  data.ids.inboxTaskId = first.id;
  data.ids.inboxRunId = run.id;
  data.ids.inboxAttachmentId = data.taskAttachments.get(first.id)![0]!.id;
}

/** The analytics "Inbox" project; seedHostileAnalytics fills it. */
export function hostileAnalyticsProject(mainKey: string): { rng: Rng; project: AnalyticsProject } {
  const rng = new Rng(0x1b0_c6);
  const project: AnalyticsProject = {
    id: rng.uuid(),
    name: "Inbox",
    url: "https://inbox.acme.example",
    created_at: iso(EPOCH_MS - 60 * DAY),
    keys: [mainKey],
  };
  return { rng, project };
}

/** The analytics Inbox's data: prompts answered with the corpus, and keywords and citations carrying it. */
export function seedHostileAnalytics({ rng }: { rng: Rng }): ProjectData {
  const model = { id: rng.uuid(), name: "ChatGPT", provider: "OpenAI" };
  const topic = { id: rng.uuid(), name: "Inbox", created_date: isoDate(START) };
  const tag = {
    id: rng.uuid(),
    name: ATTACKS.tags,
    created_date: isoDate(START),
    category: ATTACKS.zeroWidth,
    color: "#888888",
    slug: "inbox",
    competitorIds: [],
  };
  const website = {
    id: rng.uuid(),
    name: ATTACKS.bidi,
    url: "https://inbox.acme.example",
    domain: "inbox.acme.example",
    website_type: "SELF" as const,
  };
  const citations = TEXTS.map((title, i) => ({
    id: rng.uuid(),
    url: `https://inbox.acme.example/page?id=${i + 1}&ref=geo`,
    domain: "inbox.acme.example",
    path: "/page",
    title,
    model: model.name,
    first_seen: iso(START + i * HOUR),
  }));
  const prompts = TEXTS.map((name, i) => ({
    id: rng.uuid(),
    name,
    created_date: iso(START + i * HOUR),
    intent: [{ name: "informational", value: 100 }],
    source: ["manual"],
    search_volume: 100 + i,
    topicId: topic.id,
    tagIds: [tag.id],
    market: "US",
    branded: false,
    disabled: false,
  }));
  const answers = prompts.map((prompt, i) => ({
    promptId: prompt.id,
    date: START + i * HOUR + 30 * MINUTE,
    modelId: model.id,
    text: TEXTS[i] as string,
    websiteIds: [website.id],
    citationIds: [(citations[i] as { id: string }).id],
  }));
  const keywords = TEXTS.map((keyword, i) => ({
    id: rng.uuid(),
    keyword,
    theme: i % 2 === 0 ? "Security" : "Pricing",
    subtheme: "inbox",
    polarity: "neutral" as const,
  }));
  const facts = keywords.map((keyword, i) => ({
    date: START + i * HOUR,
    promptId: (prompts[i] as { id: string }).id,
    modelId: model.id,
    websiteId: website.id,
    keywordId: keyword.id,
    occurrences: 1,
  }));
  return {
    topics: [topic],
    tags: [tag],
    prompts,
    answers,
    models: [model],
    websites: [website],
    citations,
    keywords,
    facts,
  };
}
