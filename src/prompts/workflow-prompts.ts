// A workflow of workflows.ts as an MCP prompt: its arguments completed like the other prompts', checked
// against what the key can see, and its steps' templates filled into exact calls.
import { type Listing, LOOKUPS, type Named } from "./lookups.js";
import { periodChoices, resolvePeriod } from "./period.js";
import { PromptArgumentError, resolveNamed } from "./resolve.js";
import {
  listingOf,
  lookUp,
  type PromptArgumentSpec,
  type PromptEnv,
  type PromptSpec,
  type Step,
  show,
  withinProject,
} from "./spec.js";
import { fill, type Slot, type Workflow, type WorkflowArgument, workflowTools } from "./workflows.js";

/** The most competitors one comparison names, and the most models it makes a call for. */
export const MAX_COMPETITORS = 3;
export const MAX_MODELS = 5;

/** The names in a comma-separated argument, trimmed, empty ones dropped. */
export const namesIn = (value: string): string[] =>
  value
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean);

/** Completes the name after the last comma of a list argument: each value is the whole argument. */
const completingLast =
  (choices: (env: PromptEnv, others: Record<string, string>) => Promise<Listing>) =>
  async (env: PromptEnv, others: Record<string, string>, typed = ""): Promise<Listing> => {
    const listing = await choices(env, others);
    const cut = typed.lastIndexOf(",");
    if (cut < 0) return listing;
    const before = `${typed.slice(0, cut + 1)}${/^\s*/.exec(typed.slice(cut + 1))?.[0] ?? ""}`;
    const named = new Set(namesIn(typed.slice(0, cut)).map((name) => name.toLowerCase()));
    const items = listing.items
      .filter((item) => !named.has(item.name.toLowerCase()))
      .map((item) => ({ ...item, name: `${before}${item.name}` }));
    return { items, complete: listing.complete };
  };

function choicesOf(argument: WorkflowArgument): PromptArgumentSpec["choices"] {
  switch (argument.name) {
    case "project":
      return (env) => lookUp(env, LOOKUPS.analyticsProjects());
    case "period":
      return async (env) => listingOf(periodChoices(env.now));
    case "topic":
      return withinProject(LOOKUPS.topics);
    case "competitors":
      return completingLast(withinProject(LOOKUPS.websites));
  }
}

/** The names a list argument gives, each checked against the listing it completes from. */
function resolveAll(listing: Listing, value: string, what: string, source: string): Named[] {
  const names = namesIn(value);
  if (names.length > MAX_COMPETITORS) {
    throw new PromptArgumentError(`name at most ${MAX_COMPETITORS} ${what}s (got ${names.length})`);
  }
  return names.map((name) => resolveNamed(listing, name, what, source));
}

async function slotValues(workflow: Workflow, args: Record<string, string>, env: PromptEnv) {
  const period = args.period ?? workflow.defaultPeriod;
  const dates = period ? resolvePeriod(period, env.now) : undefined;
  if (dates && "error" in dates) throw new PromptArgumentError(dates.error);
  const projects = await lookUp(env, LOOKUPS.analyticsProjects());
  const project = resolveNamed(projects, args.project ?? "", "analytics project", "geo_projects");
  const values: Partial<Record<Slot, string | string[]>> = { project_id: project.id };
  if (project.url) values.project_url = project.url;
  if (dates) {
    values.start_date = dates.start_date;
    values.end_date = dates.end_date;
    if (workflow.compares) {
      values.comparison_start_date = dates.comparison_start_date;
      values.comparison_end_date = dates.comparison_end_date;
    }
  }
  if (args.topic) values.topic = args.topic;
  let competitors: Named[] = [];
  if (args.competitors !== undefined) {
    const websites = await lookUp(env, LOOKUPS.websites(project.id));
    competitors = resolveAll(websites, args.competitors, "website", "geo_websites");
    values.competitor = competitors.map((website) => website.name);
  }
  const label = dates
    ? `${dates.label}${workflow.compares ? `, against ${dates.comparisonLabel}` : ""}`
    : "all the data there is";
  return { project, values, label, competitors };
}

/** A slot a call needs that the arguments did not fill: the project's url, where geo_projects gives none. */
const unresolved = (slot: Slot): never => {
  throw new PromptArgumentError(
    `geo_projects gives this project no ${slot.replace("project_", "")}, which this analysis needs`,
  );
};

export function workflowPrompt(workflow: Workflow): PromptSpec {
  return {
    name: workflow.name,
    title: workflow.title,
    description: workflow.description,
    arguments: workflow.arguments.map((argument) => ({ ...argument, choices: choicesOf(argument) })),
    tools: workflowTools(workflow),
    async plan(args, env) {
      const { project, values, label, competitors } = await slotValues(workflow, args, env);
      const allModels = workflow.steps.some((step) => step.perModel)
        ? (await lookUp(env, LOOKUPS.models(project.id))).items
        : [];
      const models = allModels.slice(0, MAX_MODELS);
      const more = allModels.slice(MAX_MODELS).map((model) => show(env, model.name));
      const steps: Step[] = [
        {
          purpose: `\`geo_projects\` gives ${show(env, project.name)}${project.url ? ` (${show(env, project.url)})` : ""} the project_id ${show(env, project.id)}, used below.`,
        },
      ];
      for (const step of workflow.steps) {
        const calls = step.perModel ? models.map((model) => ({ ...values, model: model.name })) : [values];
        for (const filled of calls) {
          const purpose = step.perModel
            ? step.purpose.replace("{model}", show(env, filled.model as string))
            : step.purpose;
          steps.push({
            purpose,
            call: { tool: step.tool, args: fill(step.args, filled, unresolved) as Record<string, unknown> },
          });
        }
      }
      const scope = [
        args.topic && `topic ${show(env, args.topic)}`,
        competitors.length > 0 &&
          `competitors ${competitors.map((website) => show(env, website.name)).join(", ")}`,
      ]
        .filter(Boolean)
        .join("; ");
      return {
        intro: `${workflow.title} for the analytics project ${show(env, project.name)}: ${label}${scope ? `; ${scope}` : ""}.`,
        steps,
        closing: more.length
          ? `${workflow.closing} Not called above, for length: the models ${more.join(", ")}; repeat the per-model call with each as platform.`
          : workflow.closing,
      };
    },
  };
}
