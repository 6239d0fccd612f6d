// The skills' files, generated from the workflows of src/prompts/workflows.ts (the prompts' own data, so
// the two cannot drift): each workflow's steps with their slots left as {names}, and a short guide to
// reading the analytics API, from its spec.
import { codeSpan, visibleJson } from "../prompts/shown.js";
import { fill, type Slot, type Workflow, type WorkflowStep } from "../prompts/workflows.js";

/** A skill: its name (the last segment of its URI) and its files by path. */
export interface SkillFilesOf {
  name: string;
  description: string;
  files: Record<string, string>;
}

/** Slots as a skill shows them: placeholders the assistant fills in. */
const PLACEHOLDERS: Partial<Record<Slot, string | string[]>> = {
  project_id: "{project_id}",
  project_url: "{project_url}",
  start_date: "{start_date}",
  end_date: "{end_date}",
  comparison_start_date: "{comparison_start_date}",
  comparison_end_date: "{comparison_end_date}",
  competitor: ["{competitor}"],
  model: "{model}",
};

/** Skill names: lowercase letters, digits and single hyphens (the Agent Skills rules). */
export const skillName = (workflowName: string) => workflowName.replaceAll("_", "-");

const frontmatter = (name: string, description: string) =>
  ["---", `name: ${name}`, `description: ${JSON.stringify(description)}`, "---", ""].join("\n");

/** The JSON of `value` as the prompts show arguments: one code span, nothing unseen. */
const json = (value: unknown) => codeSpan(visibleJson(value));

const usesTopic = (workflow: Workflow) => workflow.arguments.some((argument) => argument.name === "topic");

function stepLine(step: WorkflowStep, index: number): string {
  const args = fill(step.args, PLACEHOLDERS);
  const each = step.perModel
    ? ` Once per model \`geo_models\` lists for the project (${json({ project_id: "{project_id}" })}), its name as {model}:`
    : "";
  return `${index + 2}.${each} ${step.purpose} call \`${step.tool}\` with ${json(args)}`;
}

function slotsText(workflow: Workflow): string[] {
  const lines = [
    `- {project_id}, {project_url}: the project's \`id\` and \`url\` from \`geo_projects\`, called with ${json({})}.`,
  ];
  const fallback = workflow.defaultPeriod ? `; when the person names none, ${workflow.defaultPeriod}` : "";
  if (workflow.arguments.some((argument) => argument.name === "period")) {
    lines.push(
      `- {start_date}, {end_date}: the period (UTC): start as \`YYYY-MM-DDT00:00:00Z\`, end as the last day \`YYYY-MM-DD\`${fallback}.${workflow.defaultPeriod ? "" : " Without a period, leave both out: the API then covers all the data there is."}`,
    );
  }
  if (workflow.compares) {
    lines.push(
      "- {comparison_start_date}, {comparison_end_date}: a range of the same length ending the day before {start_date}, written the same way.",
    );
  }
  if (workflow.arguments.some((argument) => argument.name === "competitors")) {
    lines.push(
      "- {competitor}: each competitor's website as `geo_websites` names it, one condition per competitor (at most three).",
    );
  }
  if (usesTopic(workflow)) {
    lines.push(
      `- A topic (optional): add ${json({ topics: { items: [{ operator: "is", value: "{topic}" }] } })} to the \`filters\` of each call that has or can have them, {topic} as \`geo_topics\` names it.`,
    );
  }
  return lines;
}

export function workflowSkill(workflow: Workflow): SkillFilesOf {
  const name = skillName(workflow.name);
  const description = `${workflow.description} The steps of the prompt ${workflow.name}, as calls of this server's geo_ tools.`;
  const body = [
    `# ${workflow.title}`,
    "",
    workflow.description,
    "",
    "Fill these in first:",
    "",
    ...slotsText(workflow),
    "",
    "Then make each call as written:",
    "",
    "1. `geo_projects` gives the project's id and url.",
    ...workflow.steps.map(stepLine),
    "",
    workflow.closing,
    "",
  ].join("\n");
  return { name, description, files: { "SKILL.md": `${frontmatter(name, description)}${body}` } };
}

/** The guide: how to read the analytics API and this server's answers, from the spec. */
export const GUIDE_NAME = "reading-geo-analytics";

const GUIDE_DESCRIPTION =
  "How to read this server's geo_ tools (the visibility-analytics API): date rules, the comparison range, pagination defaults and the answer forms.";

const GUIDE = `# Reading the geo_ tools

## Dates
- \`start_date\` (ISO 8601 date-time) keeps data collected on or after it; \`end_date\` on or before it. A
  date-only \`end_date\` (no \`T\`) covers that whole day.
- Left out: \`end_date\` is today; \`start_date\` is the latest run's start when \`metrics\` are asked
  for, else the earliest date there is. Metrics without any dates cover the latest run's range; neither
  metrics nor dates, all time.
- \`current_from\`/\`current_to\` are other names of \`start_date\`/\`end_date\`.

## The comparison range
- \`comparison_start_date\` and \`comparison_end_date\` come together (or \`previous_from\`/\`previous_to\`).
  Every measure is then computed over that past range too, and each row carries \`previous_{measure}\`.
- The concise answer adds, after each \`previous_{m}\`, \`{m}_change\` (m - previous_m) and
  \`{m}_change_pct\` (the change over |previous_m|, in percent, rounded half away from zero to two
  decimals), computed exactly on the values as shown; \`null\` where the earlier value is missing, and the
  percentage \`null\` where it is zero. Use these; do not recompute them.

## Pages
- \`pagination\` is \`{limit, offset}\`: limit 1 to 100, default 10; offset default 0. Without the
  object, all rows come back. \`info.total_rows\` counts the rows before paging.
- \`order_by\` is a list of \`{field, order: asc|desc}\`: the first sorts, later ones break ties.

## Filters
- Each named filter is \`{condition: AND|OR, items: [{operator, value}]}\`; operators seen: is, contains,
  gte, lte. \`advanced_filters\` is \`{join: and|or, conditions: [{field, operator, value}]}\`.

## Answers
- \`response_format\` concise (the default): rows as one \`{columns, rows}\` table, long text cut, within a
  token budget (\`truncated\` and \`next_call\` fetch what was left out); \`range\` says which dates the
  answer covers (the API's \`info.query\` where it gives them, else its defaults for the request);
  an empty page carries \`empty\`: the filters and range that produced it.
- \`response_format\` full: the API's answer as it came.
- A 422 lists each fault's \`loc\` and \`msg\`: fix those arguments.

## What the API does not document
Row fields of models, websites, citations, keywords and the sentiment report; the models' metric names;
all values of \`dimensions\`, \`measures\`, \`date_aggregation_interval\` and \`website_type\` beyond those
seen (topic, model; total_keyword_occurrences, unique_positive_keywords; week; SELF). Read what rows show.
`;

export const guideSkill = (): SkillFilesOf => ({
  name: GUIDE_NAME,
  description: GUIDE_DESCRIPTION,
  files: { "SKILL.md": `${frontmatter(GUIDE_NAME, GUIDE_DESCRIPTION)}${GUIDE}` },
});
