// What the prompt tests share: the calls a rendered prompt asks for, its text, completion requests,
// and the server they run against (the sandbox, recording, through the in-memory client).
import { afterAll, afterEach, beforeAll, beforeEach, vi } from "vitest";
import { lookupCache } from "../../src/prompts/lookups.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { ANALYTICS_GUIDE, DATA_GUIDE, WORKSPACE_GUIDE } from "../../src/server.js";
import { selectTools } from "../../src/tools/selection.js";
import { type InMemoryHarness, sandboxSettings, startInMemory } from "../helpers.js";

export const ALL = selectTools({ readOnly: false });
export const INSTRUCTIONS = [WORKSPACE_GUIDE, ANALYTICS_GUIDE, DATA_GUIDE].join("\n");
export const ACME_URL = "https://www.acme.example";

/** The calls a rendered prompt (each line ending in a period) or a skill asks for, read back from its text. */
export function callsIn(text: string): { tool: string; args: Record<string, unknown> }[] {
  return [...text.matchAll(/call `(\w+)` with `(\{.*\})`\.?$/gm)].map((match) => ({
    tool: match[1] as string,
    args: JSON.parse(match[2] as string),
  }));
}

export const promptText = (result: { messages: { content: { type: string; text?: string } }[] }) => {
  const [message] = result.messages;
  return message?.content.type === "text" ? (message.content.text ?? "") : "";
};

export const complete = (mcp: InMemoryHarness, prompt: string, name: string, value: string, args?: object) =>
  mcp.client.complete({
    ref: { type: "ref/prompt", name: prompt },
    argument: { name, value },
    ...(args ? { context: { arguments: args as Record<string, string> } } : {}),
  });

/** A recording sandbox and a server on it, as the CLI builds it, reached in memory. */
export async function startPromptServer() {
  const sandbox = await startSandbox({ record: true });
  const mcp = await startInMemory(sandboxSettings(sandbox));
  const close = async () => {
    await mcp.close();
    await sandbox.close();
  };
  return { sandbox, mcp, close };
}

/**
 * A test file's prompt server: started before its tests (handed to `take`) and closed after them; the
 * listings' cache and the sandbox's record of requests emptied before each test, real timers after it.
 */
export function usePromptServer(take: (server: { sandbox: Sandbox; mcp: InMemoryHarness }) => void): void {
  let close: () => Promise<void>;
  let sandbox: Sandbox;
  beforeAll(async () => {
    const server = await startPromptServer();
    ({ sandbox, close } = server);
    take(server);
  });
  afterAll(() => close());
  beforeEach(() => {
    lookupCache.clear();
    sandbox.requests.length = 0;
  });
  afterEach(() => {
    vi.useRealTimers();
  });
}

/** Each workflow with the arguments it is tried with on the sandbox. */
export const WORKFLOW_CASES: Record<string, Record<string, string>[]> = {
  weekly_pulse: [{ project: "Acme" }, { project: "Acme", period: "last-30-days" }],
  // The most competitors it takes (MAX_COMPETITORS), the longest message it renders on the sandbox.
  competitor_comparison: [
    { project: "Acme", competitors: "Globex, Initech" },
    { project: "Acme", competitors: "Globex, Initech, Umbrella" },
  ],
  citation_sources: [{ project: "Acme" }, { project: "Acme", topic: "Pricing", period: "last-30-days" }],
  prompts_without_mention: [{ project: "Acme" }, { project: "Acme", topic: "Pricing" }],
  topic_by_model: [{ project: "Acme" }, { project: "Acme", topic: "Pricing" }],
};
