// The GEO analyses, as data written once: each workflow's arguments and its steps, every step one tool
// call whose arguments are a template. Filled with what the person's arguments resolve to, a template is
// a prompt's exact call (workflow-prompts.ts); with its slots left as <names>, a skill's (src/skills/).
// Only what the analytics spec names is asked for: its fields, filters, metrics and dimensions, and
// values it lists as seen (`visibility_score`, `SELF`, `topic`, `model`) as seen.
import type { Template } from "./templates.js";

export { fill, type Slot, type Template } from "./templates.js";

export interface WorkflowStep {
  purpose: string;
  tool: string;
  args: Template;
  /** Made once per model geo_models lists for the project (slot `model`, and `{model}` in the purpose). */
  perModel?: boolean;
}

export interface WorkflowArgument {
  name: "project" | "period" | "topic" | "competitors";
  description: string;
  required: boolean;
}

export interface Workflow {
  name: string;
  title: string;
  description: string;
  arguments: WorkflowArgument[];
  /** Whether the period is compared with the one just before (comparison dates in every dated call). */
  compares: boolean;
  /** The period when none is given; none: the API's own default range. */
  defaultPeriod?: string;
  steps: WorkflowStep[];
  closing: string;
}

const PERIOD_NOTE =
  "last-7-days, last-30-days, last-90-days, last-month, YYYY-MM or YYYY-MM-DD..YYYY-MM-DD (UTC)";

export const ARGUMENTS = {
  project: {
    name: "project",
    description: "Analytics project: its name or id (geo_projects).",
    required: true,
  },
  period: (fallback?: string): WorkflowArgument => ({
    name: "period",
    description: `${fallback ? "Optional: " : ""}${PERIOD_NOTE}${fallback ? `; default ${fallback}` : ""}.`,
    required: !fallback,
  }),
  optionalPeriod: {
    name: "period",
    description: `Optional: ${PERIOD_NOTE}; default all time.`,
    required: false,
  },
  topic: {
    name: "topic",
    description: "Optional: only the prompts of this topic (geo_topics name or id).",
    required: false,
  },
  competitors: {
    name: "competitors",
    description: "Competitors' websites as geo_websites names them, separated by commas.",
    required: true,
  },
} satisfies Record<string, WorkflowArgument | ((fallback?: string) => WorkflowArgument)>;

/** The dates of every dated call: the period, and the one before it when the workflow compares. */
const DATES: Record<string, Template> = {
  start_date: { $when: "start_date", value: "{start_date}" },
  end_date: { $when: "end_date", value: "{end_date}" },
};
const COMPARED: Record<string, Template> = {
  ...DATES,
  comparison_start_date: "{comparison_start_date}",
  comparison_end_date: "{comparison_end_date}",
};
const is = (value: string): Template => ({ items: [{ operator: "is", value }] });
const TOPIC: Record<string, Template> = { topics: { $when: "topic", value: is("{topic}") } };
const SENTIMENT_MEASURES = ["total_keyword_occurrences", "unique_positive_keywords"];
const desc = (field: string) => [{ field, order: "desc" }];

const CHANGES =
  "Each concise answer carries, for every measure with a previous_ value, m_change and m_change_pct columns computed exactly by the server: use them, never recompute.";
const CHARTS =
  "Show each answer as a chart (hosts with MCP Apps draw these tools' results in this server's report view; elsewhere, a table).";
const RANGE = "Each answer's `range` says which dates it covers; say it with the findings.";

// Steps more than one workflow makes, word for word.
const PROMPTS_PER_TOPIC: WorkflowStep = {
  purpose: "Prompts per topic:",
  tool: "geo_topics",
  args: {
    project_id: "{project_id}",
    ...COMPARED,
    metrics: ["prompts_count"],
    order_by: desc("prompts_count"),
  },
};
const SELF_SENTIMENT_BY_MODEL: WorkflowStep = {
  purpose: "Sentiment about the project's own website by model:",
  tool: "geo_reports_sentiments",
  args: {
    project_id: "{project_id}",
    ...COMPARED,
    dimensions: ["model"],
    measures: SENTIMENT_MEASURES,
    website_type: "SELF",
  },
};

const weeklyPulse: Workflow = {
  name: "weekly_pulse",
  title: "Weekly pulse",
  description:
    "What moved in an analytics project since the period before: visibility by model and website, topics and sentiment, largest changes first.",
  arguments: [ARGUMENTS.project, ARGUMENTS.period("last-7-days")],
  compares: true,
  defaultPeriod: "last-7-days",
  steps: [
    {
      purpose: "Visibility by model:",
      tool: "geo_models",
      args: {
        project_id: "{project_id}",
        ...COMPARED,
        metrics: ["visibility_score"],
        order_by: desc("visibility_score"),
      },
    },
    {
      purpose: "The most mentioned websites:",
      tool: "geo_websites",
      args: {
        project_id: "{project_id}",
        ...COMPARED,
        metrics: ["mentions_count", "visibility_score"],
        order_by: desc("mentions_count"),
        pagination: { limit: 20 },
      },
    },
    PROMPTS_PER_TOPIC,
    SELF_SENTIMENT_BY_MODEL,
  ],
  closing: `${CHANGES} ${CHARTS} Then list the rows of all answers with the largest m_change_pct (by size, either sign; m_change where it is null), largest first, and say in a few sentences what moved. ${RANGE}`,
};

const competitorComparison: Workflow = {
  name: "competitor_comparison",
  title: "Competitor comparison",
  description:
    "The project's own website beside named competitors' in each model's answers (mentions and visibility against the period before), with the sentiment about the project by model.",
  arguments: [ARGUMENTS.project, ARGUMENTS.competitors, ARGUMENTS.period("last-30-days")],
  compares: true,
  defaultPeriod: "last-30-days",
  steps: [
    {
      purpose: "In {model}'s answers, the project's website and the competitors':",
      tool: "geo_websites",
      perModel: true,
      args: {
        project_id: "{project_id}",
        ...COMPARED,
        metrics: ["mentions_count", "visibility_score"],
        filters: {
          platform: is("{model}"),
          advanced_filters: {
            join: "or",
            conditions: [
              { field: "url", operator: "is", value: "{project_url}" },
              { $each: "competitor", value: { field: "name", operator: "is", value: "{competitor}" } },
            ],
          },
        },
      },
    },
    SELF_SENTIMENT_BY_MODEL,
  ],
  closing: `${CHANGES} ${CHARTS} Then set the project beside each competitor per model (who is mentioned more, who gained), and where the project's sentiment is weakest. ${RANGE}`,
};

const citationSources: Workflow = {
  name: "citation_sources",
  title: "Citation sources",
  description:
    "The pages and domains the answers cite, for the whole project or one topic, and those citing the project's own website.",
  arguments: [ARGUMENTS.project, ARGUMENTS.topic, ARGUMENTS.optionalPeriod],
  compares: false,
  steps: [
    {
      purpose: "The cited pages (page on with pagination.offset while info.total_rows says there are more):",
      tool: "geo_citations",
      args: { project_id: "{project_id}", ...DATES, pagination: { limit: 100 }, filters: { ...TOPIC } },
    },
    {
      purpose: "The citations that mention the project's website:",
      tool: "geo_citations",
      args: {
        project_id: "{project_id}",
        ...DATES,
        pagination: { limit: 100 },
        filters: { ...TOPIC, website_mentioned_in_citation: is("{project_url}") },
      },
    },
  ],
  closing:
    "The rows' fields are not documented: read the domain and page from what the rows show. Group the pages by domain, most cited first, as a table; say which domains carry the answers and which of them cite the project. Each answer's `range` says which dates it covers.",
};

const promptsWithoutMention: Workflow = {
  name: "prompts_without_mention",
  title: "Prompts without a mention",
  description:
    "The tracked prompts whose answers never mention the project's website, and which models gave those answers.",
  arguments: [ARGUMENTS.project, ARGUMENTS.topic, ARGUMENTS.optionalPeriod],
  compares: false,
  steps: [
    {
      purpose:
        "Every tracked prompt, with its answer count (page on while info.total_rows says there are more):",
      tool: "geo_prompts",
      args: {
        project_id: "{project_id}",
        ...DATES,
        metrics: ["answers_count"],
        order_by: [{ field: "name", order: "asc" }],
        pagination: { limit: 100 },
        filters: { ...TOPIC },
      },
    },
    {
      purpose: "The prompts with an answer that mentions the project's website:",
      tool: "geo_prompts",
      args: {
        project_id: "{project_id}",
        ...DATES,
        metrics: ["answers_count"],
        order_by: [{ field: "name", order: "asc" }],
        pagination: { limit: 100 },
        filters: { ...TOPIC, website_mentioned_in_answer: is("{project_url}") },
      },
    },
    {
      purpose: "The answers with their models:",
      tool: "geo_prompts",
      args: {
        project_id: "{project_id}",
        ...DATES,
        metrics: ["answers"],
        order_by: [{ field: "name", order: "asc" }],
        pagination: { limit: 20 },
        filters: { ...TOPIC },
      },
    },
  ],
  closing:
    "The prompts of step 1 missing from step 2 are those no answer mentions the project in. List them as a table with their answers_count and, from step 3 (paged the same way), the models that answered them; then say which topics or kinds of question the project is absent from. Each answer's `range` says which dates it covers.",
};

const topicByModel: Workflow = {
  name: "topic_by_model",
  title: "Topics by model",
  description:
    "How the models differ by topic: the sentiment about the project's website per topic and model against the period before, and the prompts per topic.",
  arguments: [ARGUMENTS.project, ARGUMENTS.period("last-30-days"), ARGUMENTS.topic],
  compares: true,
  defaultPeriod: "last-30-days",
  steps: [
    PROMPTS_PER_TOPIC,
    {
      purpose: "Sentiment about the project's own website by topic and model:",
      tool: "geo_reports_sentiments",
      args: {
        project_id: "{project_id}",
        ...COMPARED,
        dimensions: ["topic", "model"],
        measures: SENTIMENT_MEASURES,
        website_type: "SELF",
        filters: { ...TOPIC },
      },
    },
    {
      purpose: "Visibility by model:",
      tool: "geo_models",
      args: {
        project_id: "{project_id}",
        ...COMPARED,
        metrics: ["visibility_score"],
        order_by: desc("visibility_score"),
        filters: { ...TOPIC },
      },
    },
  ],
  closing: `${CHANGES} ${CHARTS} (the topic-by-model report draws as grouped bars). Then say which model treats which topic best and worst, and what changed most. ${RANGE}`,
};

export const WORKFLOWS: readonly Workflow[] = [
  weeklyPulse,
  competitorComparison,
  citationSources,
  promptsWithoutMention,
  topicByModel,
];

/** The tools a workflow calls, and the ones its arguments are looked up with. */
export const workflowTools = (workflow: Workflow): string[] => [
  ...new Set([
    "geo_projects",
    ...workflow.steps.map((step) => step.tool),
    ...(workflow.steps.some((step) => step.perModel) ? ["geo_models"] : []),
  ]),
];
