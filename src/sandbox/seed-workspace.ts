// Seeded agent-workspace world: two workspaces, their people, agents, projects
// and several hundred tasks (seed-tasks.ts), with comments and attachments
// (seed-activity.ts) and agent runs (seed-runs.ts). Same seed, same world.

import { Rng } from "./random.js";
import { finalizeTasks, seedActivity } from "./seed-activity.js";
import { type HostileProject, hostileWorkspaceProject, seedHostileWorkspace } from "./seed-hostile.js";
import { type ProjectPlan, seedTasks } from "./seed-tasks.js";
import type { Agent, Project, SpecialTask, User, Workspace, WorkspaceData } from "./types.js";

/**
 * The seed's first part: people, agents, workspaces, teams and projects (the Inbox one too), with the
 * random stream the rest continues from. Cheap: a sandbox knows its keys' users and its default project
 * from here, before the tasks are seeded.
 */
export interface WorkspaceDirectory {
  rng: Rng;
  users: User[];
  /** The main key's user (Ada, of Acme) and the single-project key's (Grace, of Hopper). */
  mainUser: User;
  singleUser: User;
  acme: Workspace;
  hopper: Workspace;
  plans: ProjectPlan[];
  special: SpecialTask;
  inbox: HostileProject;
}

export function seedWorkspace(): WorkspaceData {
  return seedWorkspaceFrom(seedWorkspaceDirectory());
}

export function seedWorkspaceDirectory(): WorkspaceDirectory {
  const rng = new Rng(0x2026_0115);
  const person = (name: string, email: string): User => ({ id: rng.uuid(), name, email });
  const ada = person("Ada Lovelace", "ada@acme.example");
  const acmeCrew = [
    person("Ben Okafor", "ben@acme.example"),
    person("Chloe Martin", "chloe@acme.example"),
    person("Diego Alvarez", "diego@acme.example"),
    person("Eun-ji Park", "eunji@acme.example"),
    person("Farah Haddad", "farah@acme.example"),
  ];
  const grace = person("Grace Hopper", "grace@hopperlabs.example");
  const hopperCrew = [
    person("Hal Jordan", "hal@hopperlabs.example"),
    person("Ines Costa", "ines@hopperlabs.example"),
  ];
  const agent = (name: string): Agent => ({ id: rng.uuid(), name });

  const acme = workspace(
    rng,
    "Acme Research",
    [ada, ...acmeCrew],
    [
      agent("Research Agent"),
      agent("Content Writer"),
      agent("SEO Auditor"),
      agent("Triage Bot"),
      agent("Data Analyst"),
    ],
  );
  const hopper = workspace(
    rng,
    "Hopper Labs",
    [grace, ...hopperCrew],
    [agent("Ops Assistant"), agent("Runbook Bot")],
  );
  const [ben, chloe, diego, eunji] = acmeCrew as [User, User, User, User, User];
  acme.teams.push(team(rng, "Growth", [ada, ben, chloe, eunji]), team(rng, "Platform", [ada, diego]));
  hopper.teams.push(team(rng, "Operations", [grace, ...hopperCrew]));

  const growth = project(rng, acme, "Growth Marketing", "GRO", [ada, ...acmeCrew]);
  const platform = project(rng, acme, "Platform", "PLT", [ada, diego, ben]);
  // Private to two colleagues: the main key sees that it exists only through a 403.
  const finance = project(rng, acme, "Finance", "FIN", [ben, chloe]);
  const operations = project(rng, hopper, "Operations", "OPS", [grace, ...hopperCrew]);

  const users = [ada, ...acmeCrew, grace, ...hopperCrew];
  const special: SpecialTask = { index: 40, subtaskIndexes: [41, 42, 43] };
  const plans: ProjectPlan[] = [
    { workspace: acme, project: growth, count: 220, special },
    { workspace: acme, project: platform, count: 90 },
    { workspace: acme, project: finance, count: 24 },
    { workspace: hopper, project: operations, count: 40 },
  ];
  // Its own random stream, so its place here changes nothing else.
  const inbox = hostileWorkspaceProject(acme, [ada, ben]);
  return { rng, users, mainUser: ada, singleUser: grace, acme, hopper, plans, special, inbox };
}

/** The rest of the seed: tasks, comments, attachments and runs; once per directory (it draws on its stream). */
export function seedWorkspaceFrom(directory: WorkspaceDirectory): WorkspaceData {
  const { rng, users, mainUser: ada, singleUser: grace, acme, hopper, plans, special, inbox } = directory;
  const [growth, platform, finance, operations] = plans.map((plan) => plan.project) as [
    Project,
    Project,
    Project,
    Project,
  ];

  const data: WorkspaceData = {
    users,
    workspaces: [acme, hopper],
    projects: new Map([growth, platform, finance, operations].map((p) => [p.id, p])),
    tasksByProject: new Map(),
    tasks: new Map(),
    comments: new Map(),
    taskAttachments: new Map(),
    runs: [],
    steps: new Map(),
    ids: {
      mainUserId: ada.id,
      singleUserId: grace.id,
      workspaceId: acme.id,
      otherWorkspaceId: hopper.id,
      workspaceProjects: [growth.id, platform.id],
      forbiddenWorkspaceProjectId: finance.id,
      singleKeyWorkspaceProjectId: operations.id,
      taskId: "",
      subtaskId: "",
      agentId: acme.agents[0]!.id,
      runId: "",
      taskAttachmentId: "",
      commentId: "",
      commentAttachmentId: "",
      inboxTaskId: "",
      inboxRunId: "",
      inboxAttachmentId: "",
    },
  };

  for (const plan of plans) {
    const tasks = seedTasks(rng, plan, users);
    data.tasksByProject.set(plan.project.id, tasks);
    for (const task of tasks) data.tasks.set(task.id, task);
  }
  const specialTask = data.tasksByProject.get(growth.id)![special.index]!;
  data.ids.taskId = specialTask.id;
  data.ids.subtaskId = data.tasksByProject.get(growth.id)![special.subtaskIndexes[0]!]!.id;

  for (const plan of plans) {
    seedActivity(rng, data, plan.workspace, plan.project, users, plan.special);
  }
  finalizeTasks(data);
  seedHostileWorkspace(data, inbox, acme.agents[0]!);
  data.ids.workspaceProjects.push(inbox.project.id);
  return data;
}

function workspace(rng: Rng, name: string, members: User[], agents: Agent[]): Workspace {
  const id = rng.uuid();
  const labelIds = Array.from({ length: 8 }, () => rng.uuid());
  return { id, name, memberIds: members.map((m) => m.id), teams: [], projects: [], agents, labelIds };
}

function team(rng: Rng, name: string, members: User[]) {
  return { id: rng.uuid(), name, memberIds: members.map((m) => m.id) };
}

function project(rng: Rng, ws: Workspace, name: string, prefix: string, members: User[]): Project {
  const p: Project = {
    id: rng.uuid(),
    name,
    identifier_prefix: prefix,
    workspaceId: ws.id,
    memberIds: members.map((m) => m.id),
  };
  ws.projects.push(p);
  return p;
}
