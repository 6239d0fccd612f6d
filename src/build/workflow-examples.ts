// For docs/prompts.md (npm run docs): each GEO workflow's steps as its skill writes them, and an example
// answer on the sandbox: the workflow rendered for the project Acme, its first call made (concise, at most
// three rows) exactly as the message writes it otherwise.
import { isInputRequiredResult } from "@modelcontextprotocol/server";
import { createDispatcher } from "../clients/http.js";
import { createUpstreams } from "../clients/index.js";
import type { UpstreamSettings } from "../config/types.js";
import { PROMPTS } from "../prompts/definitions.js";
import { WORKFLOWS } from "../prompts/workflows.js";
import { workflowSkill } from "../skills/skill-files.js";
import { callTool } from "../tools/call.js";
import { ALL_TOOL_NAMES } from "../tools/register.js";

/** The arguments each workflow's example is rendered with on the sandbox. */
export const EXAMPLE_ARGUMENTS: Record<string, Record<string, string>> = {
  weekly_pulse: { project: "Acme" },
  competitor_comparison: { project: "Acme", competitors: "Globex, Initech" },
  citation_sources: { project: "Acme", period: "last-30-days" },
  prompts_without_mention: { project: "Acme", period: "last-30-days" },
  topic_by_model: { project: "Acme", topic: "Pricing" },
};

export interface WorkflowExample {
  name: string;
  title: string;
  description: string;
  /** The numbered steps of its skill (slots as <names>). */
  steps: string;
  arguments: Record<string, string>;
  tool: string;
  /** The first call's arguments as made, and its concise answer's text. */
  args: Record<string, unknown>;
  answer: string;
}

const EXAMPLE_ROWS = 3;

export async function workflowExamples(): Promise<WorkflowExample[]> {
  const { startSandbox } = await import("../sandbox/index.js");
  const sandbox = await startSandbox();
  const settings: UpstreamSettings = {
    workspaceBaseUrl: sandbox.workspaceBaseUrl,
    analyticsBaseUrl: sandbox.analyticsBaseUrl,
    workspaceApiKey: sandbox.apiKey,
    timeoutMs: 10_000,
    retryBudgetMs: 0,
    maxResponseBytes: 100 * 1024 * 1024,
    concurrency: 8,
    responseFormat: "concise",
  };
  const dispatcher = createDispatcher(settings);
  const upstreams = createUpstreams(settings, dispatcher);
  const env = {
    upstreams,
    enabled: ALL_TOOL_NAMES,
    permits: () => true,
    now: new Date(`${sandbox.today}T12:00:00Z`),
  };
  try {
    const examples: WorkflowExample[] = [];
    for (const workflow of WORKFLOWS) {
      const prompt = PROMPTS.find((candidate) => candidate.name === workflow.name);
      const given = EXAMPLE_ARGUMENTS[workflow.name] ?? {};
      const plan = await prompt?.plan(given, env);
      const call = plan?.steps.find((step) => step.call)?.call;
      if (!call) throw new Error(`${workflow.name} renders no call`);
      const args = { ...call.args, pagination: { limit: EXAMPLE_ROWS } };
      const result = await callTool(upstreams, call.tool, args, {
        enabled: ALL_TOOL_NAMES,
        report: () => {},
      });
      if (isInputRequiredResult(result) || result.isError || result.content[0]?.type !== "text") {
        throw new Error(`${workflow.name}: ${call.tool} failed`);
      }
      const body = workflowSkill(workflow).files["SKILL.md"] ?? "";
      examples.push({
        name: workflow.name,
        title: workflow.title,
        description: workflow.description,
        steps: body.slice(body.indexOf("\n1. "), body.lastIndexOf("\n\n")).trim(),
        arguments: given,
        tool: call.tool,
        args,
        answer: result.content[0].text,
      });
    }
    return examples;
  } finally {
    await dispatcher.close();
    await sandbox.close();
  }
}
