// The report workflows, as data: each prompt's arguments, the tools its steps call, and the steps
// themselves as tool calls with their exact arguments (tests parse each against the tool's own schema).
import type { Upstreams } from "../clients/index.js";
import {
  type Listing,
  LOOKUPS,
  LookupBeyondGrant,
  type LookupSpec,
  lookupCache,
  type Named,
} from "./lookups.js";
import { PERIOD_FORMS, type PeriodDates, periodChoices, resolvePeriod } from "./period.js";
import { findNamed, PromptArgumentError, resolveNamed } from "./resolve.js";
import { quoted } from "./shown.js";

/** A call the assistant is asked to make. */
export interface ToolStep {
  tool: string;
  args: Record<string, unknown>;
}

/** One numbered step: what it is for, and the call that does it (none for a step already done). */
export interface Step {
  purpose: string;
  call?: ToolStep;
}

export interface PromptPlan {
  intro: string;
  steps: Step[];
  closing: string;
}

/** What a prompt's lookups and dates depend on. */
export interface PromptEnv {
  upstreams: Upstreams;
  /** The server's tools: a lookup through a tool that is not among them completes nothing. */
  enabled: ReadonlySet<string>;
  /** Whether the caller's grant allows a call of this tool: a lookup beyond it sends nothing. */
  permits: (tool: string) => boolean;
  now: Date;
}

/** A listing through `spec`'s tool, or LookupBeyondGrant, with nothing sent, when the grant does not allow it. */
const lookUp = (env: PromptEnv, spec: LookupSpec): Promise<Listing> =>
  env.permits(spec.tool)
    ? lookupCache.get(env.upstreams, spec)
    : Promise.reject(new LookupBeyondGrant(spec.tool));

/** Text from the API or the person, as the message shows it (shown.ts): sanitized unless --sanitize off. */
const show = (env: PromptEnv, text: string) => quoted(text, env.upstreams.settings.sanitize !== "off");

export interface PromptArgumentSpec {
  name: string;
  description: string;
  required: boolean;
  /** The values this argument can take, given the others typed so far (names, not ids). */
  choices?: (env: PromptEnv, others: Record<string, string>) => Promise<Listing>;
}

export interface PromptSpec {
  name: string;
  title: string;
  description: string;
  arguments: PromptArgumentSpec[];
  /** Every tool the prompt calls or looks up with: it is offered only where all of them are. */
  tools: readonly string[];
  plan(args: Record<string, string>, env: PromptEnv): Promise<PromptPlan>;
}

const listingOf = (values: string[]): Listing => ({
  items: values.map((value) => ({ id: value, name: value })),
  complete: true,
});

/** The analytics project an argument names, or the configured default when it names none. */
async function analyticsProjectId(env: PromptEnv, given: string | undefined): Promise<string | undefined> {
  if (!given) return env.upstreams.settings.analyticsProjectId;
  const found = findNamed(await lookUp(env, LOOKUPS.analyticsProjects()), given);
  return found.length === 1 ? found[0]?.id : undefined;
}

/** Names within the analytics project the `project` argument names so far (or the default one). */
const withinProject =
  (lookup: (projectId: string) => LookupSpec) =>
  async (env: PromptEnv, others: Record<string, string>): Promise<Listing> => {
    const projectId = await analyticsProjectId(env, others.project);
    if (!projectId) return { items: [], complete: true };
    const spec = lookup(projectId);
    return env.enabled.has(spec.tool) ? lookUp(env, spec) : { items: [], complete: true };
  };

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

export const PROMPTS: readonly PromptSpec[] = [visibilityReport, taskTriage];
