// The report workflows, as data: each prompt's arguments, the tools its steps call, and the steps
// themselves as tool calls with their exact arguments (tests parse each against the tool's own schema).
import { LOOKUPS, type Named } from "./lookups.js";
import { PERIOD_FORMS, type PeriodDates, periodChoices, resolvePeriod } from "./period.js";
import { PromptArgumentError, resolveNamed } from "./resolve.js";
import {
  listingOf,
  lookUp,
  type PromptEnv,
  type PromptSpec,
  type Step,
  show,
  withinProject,
} from "./spec.js";
import { workflowPrompt } from "./workflow-prompts.js";
import { WORKFLOWS } from "./workflows.js";

export type { PromptArgumentSpec, PromptEnv, PromptPlan, PromptSpec, Step, ToolStep } from "./spec.js";

/** The calls of a visibility report: every one shares the project, the dates and the topic filter. */
function visibilitySteps(
  env: PromptEnv,
  project: Named,
  dates: PeriodDates,
  args: Record<string, string>,
): Step[] {
  const { label: _label, comparisonLabel: _comparison, ...range } = dates;
  const base = { project_id: project.id, ...range };
  const topic = args.topic ? { topics: { items: [{ operator: "is", value: args.topic }] } } : undefined;
  const filters = topic ? { filters: topic } : {};
  const measured = { metrics: ["visibility_score", "mentions_count"] };
  const byVisibility = { order_by: [{ field: "visibility_score", order: "desc" }] };
  const steps: Step[] = [
    {
      purpose: `\`geo_projects\` gives ${show(env, project.name)} the project_id ${show(env, project.id)}, used below.`,
    },
    {
      purpose: "Visibility by model:",
      call: {
        tool: "geo_models",
        args: { ...base, metrics: ["visibility_score"], ...byVisibility, ...filters },
      },
    },
    {
      purpose: "The most visible websites:",
      call: {
        tool: "geo_websites",
        args: { ...base, ...measured, ...byVisibility, pagination: { limit: 10 }, ...filters },
      },
    },
  ];
  if (args.competitor) {
    const competitor = { name: { items: [{ operator: "is", value: args.competitor }] } };
    steps.push({
      purpose: "The competitor, to set beside the project's own website:",
      call: { tool: "geo_websites", args: { ...base, ...measured, filters: { ...topic, ...competitor } } },
    });
  }
  steps.push({
    purpose: `Sentiment about the project's own website by ${topic ? "model" : "topic and model"}:`,
    call: {
      tool: "geo_reports_sentiments",
      args: {
        ...base,
        dimensions: topic ? ["model"] : ["topic", "model"],
        measures: ["total_keyword_occurrences", "unique_positive_keywords"],
        website_type: "SELF",
        ...filters,
      },
    },
  });
  return steps;
}

const visibilityReport: PromptSpec = {
  name: "visibility_report",
  title: "Visibility report",
  description:
    "An analytics project's visibility over a period, by AI model and by website, and the sentiment of answers by topic and model, each against the period before; shown as charts.",
  arguments: [
    {
      name: "project",
      description: "Analytics project: its name or id (geo_projects).",
      required: true,
      choices: (env) => lookUp(env, LOOKUPS.analyticsProjects()),
    },
    {
      name: "period",
      description: `${PERIOD_FORMS} (UTC).`,
      required: true,
      choices: async (env) => listingOf(periodChoices(env.now)),
    },
    {
      name: "topic",
      description: "Optional: only the prompts of this topic (geo_topics name or id).",
      required: false,
      choices: withinProject(LOOKUPS.topics),
    },
    {
      name: "competitor",
      description: "Optional: a competitor's website, as geo_websites names it, to compare with.",
      required: false,
      choices: withinProject(LOOKUPS.websites),
    },
  ],
  tools: ["geo_projects", "geo_models", "geo_websites", "geo_reports_sentiments"],
  async plan(args, env) {
    // The period first: a wrong one is refused before anything is sent.
    const dates = resolvePeriod(args.period ?? "", env.now);
    if ("error" in dates) throw new PromptArgumentError(dates.error);
    const projects = await lookUp(env, LOOKUPS.analyticsProjects());
    const project = resolveNamed(projects, args.project ?? "", "analytics project", "geo_projects");
    const period = `${dates.label}, against ${dates.comparisonLabel}`;
    const scope = [
      args.topic && `topic ${show(env, args.topic)}`,
      args.competitor && `competitor ${show(env, args.competitor)}`,
    ]
      .filter(Boolean)
      .join(", ");
    return {
      intro: `Visibility report for the analytics project ${show(env, project.name)}${project.url ? ` (${show(env, project.url)})` : ""}: ${period}${scope ? `; ${scope}` : ""}.`,
      steps: visibilitySteps(env, project, dates, args),
      closing:
        "Show each answer as a chart (hosts with MCP Apps draw these tools' results in this server's report view; elsewhere, a table). The previous_ values are the earlier period. Then say in a few sentences how visibility moved, which models and websites lead, and where sentiment is weakest.",
    };
  },
};

const taskTriage: PromptSpec = {
  name: "task_triage",
  title: "Task triage",
  description:
    "A workspace project's tasks counted by status and by priority (as charts), then its open urgent tasks, to decide what to take first.",
  arguments: [
    {
      name: "project",
      description: "Workspace project: its name or id (whoami).",
      required: true,
      choices: (env) => lookUp(env, LOOKUPS.workspaceProjects()),
    },
  ],
  tools: ["whoami", "tasks_query"],
  async plan(args, env) {
    const projects = await lookUp(env, LOOKUPS.workspaceProjects());
    const project = resolveNamed(projects, args.project ?? "", "workspace project", "whoami");
    const counts = (group_by: string) => ({
      tool: "tasks_query",
      args: { project_id: project.id, view: "counts", group_by },
    });
    return {
      intro: `Triage of the workspace project ${show(env, project.name)}.`,
      steps: [
        { purpose: `\`whoami\` gives it the project_id ${show(env, project.id)}, used below.` },
        { purpose: "Tasks per status:", call: counts("status") },
        { purpose: "Tasks per priority:", call: counts("priority") },
        {
          purpose:
            "The urgent tasks (page on with next_cursor while has_more; the API documents neither the filter's keys nor its status values, so if it answers 422 follow what it names):",
          call: {
            tool: "tasks_query",
            args: { project_id: project.id, view: "list", query: { filter: { priority: "urgent" } } },
          },
        },
      ],
      closing:
        "Show the counts as charts (hosts with MCP Apps draw them in this server's report view; elsewhere, a table). Then list the urgent tasks that are still open (leave out done, cancelled and the like) as a table: identifier, title, status, assignee, due date, the earliest due first; and say which to take first and why.",
    };
  },
};

export const PROMPTS: readonly PromptSpec[] = [
  visibilityReport,
  taskTriage,
  ...WORKFLOWS.map(workflowPrompt),
];
