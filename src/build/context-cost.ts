// What answers cost, measured on the sandbox: a fixed set of typical calls, each made in both forms
// through the real call path. Shared by `npm run tool-size` and the tests that bound the figures.
import { isInputRequiredResult, type Tool } from "@modelcontextprotocol/server";
import { createDispatcher } from "../clients/http.js";
import { createUpstreams } from "../clients/index.js";
import type { UpstreamSettings } from "../config/types.js";
import type { SandboxIds } from "../sandbox/index.js";
import { callTool } from "../tools/call.js";
import { ALL_TOOL_NAMES } from "../tools/register.js";

/** What a model reads of tool definitions: name, description and input schema, as JSON. */
export function definitionText(tools: readonly Tool[]): string {
  return JSON.stringify(
    tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })),
  );
}

export interface TypicalCall {
  label: string;
  tool: string;
  /** Arguments, given the sandbox's ids. */
  args: (ids: SandboxIds) => Record<string, unknown>;
  /**
   * The most the concise answer may cost, as a share of the upstream body's tokens: a third where
   * concise drops fields; higher where the rows are narrow or not documented (the reason is beside it).
   */
  conciseShare: number;
}

const SENTIMENTS = {
  dimensions: ["topic", "model", "date"],
  measures: ["total_keyword_occurrences", "unique_positive_keywords"],
};

export const TYPICAL_CALLS: readonly TypicalCall[] = [
  {
    label: "tasks_query list (default page of 50)",
    tool: "tasks_query",
    args: () => ({ view: "list" }),
    conciseShare: 1 / 3,
  },
  {
    label: "tasks_query list, page of 100",
    tool: "tasks_query",
    args: () => ({ view: "list", query: { pagination: { page_size: 100 } } }),
    conciseShare: 1 / 3,
  },
  {
    label: "tasks_query counts by status",
    tool: "tasks_query",
    args: () => ({ view: "counts", group_by: "status" }),
    conciseShare: 1, // a few counts: nothing to drop
  },
  {
    label: "agent_runs_query of an agent",
    tool: "agent_runs_query",
    args: (ids) => ({ scope: "agent_runs", agent_id: ids.agentId }),
    // Two uuids a row (the run's, for run_progress, and its task's) and four dates: about 37 %.
    conciseShare: 0.4,
  },
  { label: "whoami", tool: "whoami", args: () => ({}), conciseShare: 1 },
  { label: "geo_projects", tool: "geo_projects", args: () => ({}), conciseShare: 1 },
  {
    label: "geo_prompts with answers_count, limit 50",
    tool: "geo_prompts",
    args: () => ({ metrics: ["answers_count"], pagination: { limit: 50 } }),
    // Drops created_date, intent and source; id, name and the two counts stay: about 43 %.
    conciseShare: 0.5,
  },
  {
    label: "geo_tags with query_count, limit 50",
    tool: "geo_tags",
    args: () => ({ metrics: ["query_count"], pagination: { limit: 50 } }),
    // Narrow rows: only created_date and color go; about 62 %.
    conciseShare: 0.7,
  },
  {
    label: "geo_citations limit 100",
    tool: "geo_citations",
    args: () => ({ pagination: { limit: 100 } }),
    // The spec does not document the row: concise keeps every field, and only the table form saves.
    conciseShare: 0.9,
  },
  {
    label: "geo_keywords limit 50",
    tool: "geo_keywords",
    args: () => ({ pagination: { limit: 50 } }),
    // As citations: rows not documented, every field kept.
    conciseShare: 0.9,
  },
  {
    label: "geo_reports_sentiments by topic, model and date",
    tool: "geo_reports_sentiments",
    args: () => SENTIMENTS,
    // Over the budget: rows left out, with the call that fetches them.
    conciseShare: 1 / 3,
  },
];

export interface MeasuredAnswer {
  text: string;
  /** Rows left out over the budget, when any were. */
  leftOut?: number;
}

export interface MeasuredCall extends TypicalCall {
  /** The upstream body's own text: what every call cost before answers had a form and a budget. */
  upstream: string;
  full: MeasuredAnswer;
  concise: MeasuredAnswer;
}

const measured = (text: string): MeasuredAnswer => {
  const truncated = (JSON.parse(text) as { truncated?: { left_out?: number } }).truncated;
  return { text, leftOut: truncated?.left_out };
};

/** Each call on a fresh sandbox, with the default budgets: upstream text, full and concise answers. */
export async function measureCalls(
  calls: readonly TypicalCall[],
  budget: Pick<UpstreamSettings, "maxResultTokens"> = {},
): Promise<MeasuredCall[]> {
  const { startSandbox } = await import("../sandbox/index.js");
  const sandbox = await startSandbox();
  const settings: UpstreamSettings = {
    workspaceBaseUrl: sandbox.workspaceBaseUrl,
    analyticsBaseUrl: sandbox.analyticsBaseUrl,
    workspaceApiKey: sandbox.apiKey,
    workspaceProjectId: sandbox.workspaceProjectId,
    analyticsProjectId: sandbox.analyticsProjectId,
    timeoutMs: 10_000,
    retryBudgetMs: 0,
    maxResponseBytes: 100 * 1024 * 1024,
    concurrency: 8,
    ...budget,
  };
  const dispatcher = createDispatcher(settings);
  const upstreams = createUpstreams(settings, dispatcher);
  const unbounded = createUpstreams({ ...settings, maxResultTokens: 1_000_000 }, dispatcher);
  const call = async (from: typeof upstreams, tool: string, args: Record<string, unknown>) => {
    const result = await callTool(from, tool, args, {
      enabled: ALL_TOOL_NAMES,
      report: () => {},
    });
    if (isInputRequiredResult(result)) throw new Error(`${tool} asked for input`);
    const block = result.content[0];
    if (result.isError || block?.type !== "text")
      throw new Error(`${tool} failed: ${JSON.stringify(result)}`);
    return block.text;
  };
  try {
    const results: MeasuredCall[] = [];
    for (const typical of calls) {
      const args = typical.args(sandbox.ids);
      results.push({
        ...typical,
        upstream: await call(unbounded, typical.tool, { ...args, response_format: "full" }),
        full: measured(await call(upstreams, typical.tool, { ...args, response_format: "full" })),
        concise: measured(await call(upstreams, typical.tool, { ...args, response_format: "concise" })),
      });
    }
    return results;
  } finally {
    await dispatcher.close();
    await sandbox.close();
  }
}
