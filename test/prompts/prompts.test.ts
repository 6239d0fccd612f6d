// The report workflows as MCP prompts: which are listed for which tools, the exact text each renders
// (every call in it valid for its tool, and answered by the sandbox), argument checks, and completion
// of the arguments from the APIs: exact upstream requests, a short per-key cache, bounds, failing soft.
import { readFileSync } from "node:fs";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { PROMPTS } from "../../src/prompts/definitions.js";
import { completionWait } from "../../src/prompts/index.js";
import { lookupCache } from "../../src/prompts/lookups.js";
import { resolvePeriod } from "../../src/prompts/period.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { ANALYTICS_GUIDE, DATA_GUIDE, sandboxGuide, WORKSPACE_GUIDE } from "../../src/server.js";
import { PREPARED_TOOLS } from "../../src/tools/register.js";
import { selectTools } from "../../src/tools/selection.js";
import {
  type InMemoryHarness,
  type RecordedHarness,
  sandboxSettings,
  startInMemory,
  startOnRecorder,
} from "../helpers.js";
import { logLines } from "../log-capture.js";

const ALL = selectTools({ readOnly: false });
const INSTRUCTIONS = [WORKSPACE_GUIDE, ANALYTICS_GUIDE, DATA_GUIDE].join("\n");

/** The calls a rendered prompt asks for, read back from its text. */
function callsIn(text: string): { tool: string; args: Record<string, unknown> }[] {
  return [...text.matchAll(/call `(\w+)` with `(\{.*\})`$/gm)].map((match) => ({
    tool: match[1] as string,
    args: JSON.parse(match[2] as string),
  }));
}

const promptText = (result: { messages: { content: { type: string; text?: string } }[] }) => {
  const [message] = result.messages;
  return message?.content.type === "text" ? (message.content.text ?? "") : "";
};

const complete = (mcp: InMemoryHarness, prompt: string, name: string, value: string, args?: object) =>
  mcp.client.complete({
    ref: { type: "ref/prompt", name: prompt },
    argument: { name, value },
    ...(args ? { context: { arguments: args as Record<string, string> } } : {}),
  });

let sandbox: Sandbox;
let mcp: InMemoryHarness;
beforeAll(async () => {
  sandbox = await startSandbox({ record: true });
  mcp = await startInMemory(sandboxSettings(sandbox));
});
afterAll(async () => {
  await mcp.close();
  await sandbox.close();
});
beforeEach(() => {
  lookupCache.clear();
  sandbox.requests.length = 0;
});
afterEach(() => {
  vi.useRealTimers();
});

const sent = () => sandbox.requests.map(({ method, path, body }) => ({ method, path, body }));
const ACME_URL = "https://www.acme.example";

describe("prompts/list", () => {
  it("lists both report workflows with their arguments", async () => {
    expect(await mcp.client.listPrompts()).toEqual({
      prompts: [
        {
          name: "visibility_report",
          title: "Visibility report",
          description:
            "An analytics project's visibility over a period, by AI model and by website, and the sentiment of answers by topic and model, each against the period before; shown as charts.",
          arguments: [
            {
              name: "project",
              description: "Analytics project: its name or id (geo_projects).",
              required: true,
            },
            {
              name: "period",
              description:
                "last-7-days, last-30-days, last-90-days, last-month, a month YYYY-MM, or days YYYY-MM-DD..YYYY-MM-DD (UTC).",
              required: true,
            },
            {
              name: "topic",
              description: "Optional: only the prompts of this topic (geo_topics name or id).",
              required: false,
            },
            {
              name: "competitor",
              description: "Optional: a competitor's website, as geo_websites names it, to compare with.",
              required: false,
            },
          ],
        },
        {
          name: "task_triage",
          title: "Task triage",
          description:
            "A workspace project's tasks counted by status and by priority (as charts), then its open urgent tasks, to decide what to take first.",
          arguments: [
            { name: "project", description: "Workspace project: its name or id (whoami).", required: true },
          ],
        },
      ],
    });
    expect(mcp.client.getServerCapabilities()).toMatchObject({
      prompts: { listChanged: false },
      completions: {},
    });
  });

  it.each([
    ["--toolsets workspace", { toolsets: ["workspace"] }, ["task_triage"]],
    ["--toolsets analytics", { toolsets: ["analytics"] }, ["visibility_report"]],
    ["--read-only", { readOnly: true }, ["visibility_report", "task_triage"]],
    [
      "--tools without geo_websites",
      { tools: ["whoami", "tasks_query", "geo_projects", "geo_models", "geo_reports_sentiments"] },
      ["task_triage"],
    ],
  ])("with %s, lists only the prompts whose tools are all enabled", async (_flags, selection, names) => {
    const narrow = await startInMemory(sandboxSettings(sandbox), {
      tools: selectTools({ readOnly: false, ...selection }),
    });
    try {
      const listed = await narrow.client.listPrompts();
      expect(listed.prompts.map((prompt) => prompt.name)).toEqual(names);
      const hidden = ["visibility_report", "task_triage"].find((name) => !names.includes(name));
      if (hidden) {
        await expect(
          narrow.client.getPrompt({ name: hidden, arguments: { project: "Acme", period: "2025-12" } }),
        ).rejects.toMatchObject({
          code: -32602,
          message: expect.stringContaining(`"${hidden}" is not offered`),
        });
      }
    } finally {
      await narrow.close();
    }
  });

  it("a server left without prompts declares neither prompts nor completions", async () => {
    const bare = await startInMemory(sandboxSettings(sandbox), {
      tools: selectTools({ tools: ["whoami", "geo_projects"], readOnly: false }),
    });
    try {
      expect(bare.client.getServerCapabilities()).toEqual({
        tools: { listChanged: false },
        logging: {},
        resources: {},
      });
      await expect(bare.client.request({ method: "prompts/list", params: {} })).rejects.toMatchObject({
        code: -32601,
      });
    } finally {
      await bare.close();
    }
  });
});

describe("visibility_report", () => {
  it("renders the walk through geo_projects, the listings and the sentiment report for the month", async () => {
    const id = sandbox.analyticsProjectId;
    const result = await mcp.client.getPrompt({
      name: "visibility_report",
      arguments: { project: "acme", period: "2025-12" },
    });
    const range = `"project_id":"${id}","start_date":"2025-12-01T00:00:00Z","end_date":"2025-12-31","comparison_start_date":"2025-11-01T00:00:00Z","comparison_end_date":"2025-11-30"`;
    expect(promptText(result)).toBe(
      `Visibility report for the analytics project Acme (${ACME_URL}): 2025-12-01 to 2025-12-31, against 2025-11-01 to 2025-11-30.

1. \`geo_projects\` gives Acme the project_id ${id}, used below.
2. Visibility by model: call \`geo_models\` with \`{${range},"metrics":["visibility_score"],"order_by":[{"field":"visibility_score","order":"desc"}]}\`
3. The most visible websites: call \`geo_websites\` with \`{${range},"metrics":["visibility_score","mentions_count"],"order_by":[{"field":"visibility_score","order":"desc"}],"pagination":{"limit":10}}\`
4. Sentiment about the project's own website by topic and model: call \`geo_reports_sentiments\` with \`{${range},"dimensions":["topic","model"],"measures":["total_keyword_occurrences","unique_positive_keywords"],"website_type":"SELF"}\`

Show each answer as a chart (hosts with MCP Apps draw these tools' results in this server's report view; elsewhere, a table). The previous_ values are the earlier period. Then say in a few sentences how visibility moved, which models and websites lead, and where sentiment is weakest.`,
    );
    expect(result.messages[0]?.role).toBe("user");
    // One look-up: the project, by the key's own list.
    expect(sent()).toEqual([{ method: "POST", path: "/v2/geo/business/projects", body: {} }]);
  });

  it("narrows every call to a topic and adds the competitor's website", async () => {
    const id = sandbox.analyticsProjectId;
    const result = await mcp.client.getPrompt({
      name: "visibility_report",
      arguments: { project: id, period: "2025-12-01..2025-12-14", topic: "Pricing", competitor: "Globex" },
    });
    const range = `"project_id":"${id}","start_date":"2025-12-01T00:00:00Z","end_date":"2025-12-14","comparison_start_date":"2025-11-17T00:00:00Z","comparison_end_date":"2025-11-30"`;
    const topic = `"topics":{"items":[{"operator":"is","value":"Pricing"}]}`;
    expect(promptText(result)).toBe(
      `Visibility report for the analytics project Acme (${ACME_URL}): 2025-12-01 to 2025-12-14, against 2025-11-17 to 2025-11-30; topic "Pricing", competitor "Globex".

1. \`geo_projects\` gives Acme the project_id ${id}, used below.
2. Visibility by model: call \`geo_models\` with \`{${range},"metrics":["visibility_score"],"order_by":[{"field":"visibility_score","order":"desc"}],"filters":{${topic}}}\`
3. The most visible websites: call \`geo_websites\` with \`{${range},"metrics":["visibility_score","mentions_count"],"order_by":[{"field":"visibility_score","order":"desc"}],"pagination":{"limit":10},"filters":{${topic}}}\`
4. The competitor, to set beside the project's own website: call \`geo_websites\` with \`{${range},"metrics":["visibility_score","mentions_count"],"filters":{${topic},"name":{"items":[{"operator":"is","value":"Globex"}]}}}\`
5. Sentiment about the project's own website by model: call \`geo_reports_sentiments\` with \`{${range},"dimensions":["model"],"measures":["total_keyword_occurrences","unique_positive_keywords"],"website_type":"SELF","filters":{${topic}}}\`

Show each answer as a chart (hosts with MCP Apps draw these tools' results in this server's report view; elsewhere, a table). The previous_ values are the earlier period. Then say in a few sentences how visibility moved, which models and websites lead, and where sentiment is weakest.`,
    );
  });

  it("asks only for calls that its tools' schemas accept and that the sandbox answers with rows", async () => {
    const cases: Record<string, string>[] = [
      { project: "Acme", period: "2025-12" },
      { project: "Acme", period: "2025-12", topic: "Pricing", competitor: "Globex" },
    ];
    for (const args of cases) {
      const text = promptText(await mcp.client.getPrompt({ name: "visibility_report", arguments: args }));
      const calls = callsIn(text);
      expect(calls.map((call) => call.tool)).toEqual(
        args.competitor
          ? ["geo_models", "geo_websites", "geo_websites", "geo_reports_sentiments"]
          : ["geo_models", "geo_websites", "geo_reports_sentiments"],
      );
      for (const { tool, args: callArgs } of calls) {
        // Strict schemas: a renamed tool or argument fails here.
        expect(PREPARED_TOOLS.get(tool)?.input.safeParse(callArgs).success, tool).toBe(true);
        const answer = await mcp.call(tool, callArgs);
        expect(answer.isError, `${tool}: ${JSON.stringify(answer.content)}`).toBeFalsy();
        const rows = (answer.structuredContent as { data: unknown[] }).data;
        expect(rows.length, tool).toBeGreaterThan(0);
      }
    }
  });
});

describe("on the sandbox (--demo), whose data stops at its own today", () => {
  it("counts periods back from the sandbox's today, and each named range finds rows", async () => {
    const demo = await startInMemory(sandboxSettings(sandbox), { sandboxToday: sandbox.today });
    try {
      expect(sandbox.today).toBe("2026-01-15");
      expect(demo.client.getInstructions()).toBe(`${INSTRUCTIONS}\n${sandboxGuide("2026-01-15")}`);
      const expected: Record<string, string> = {
        "last-7-days": "2026-01-09 to 2026-01-15, against 2026-01-02 to 2026-01-08",
        "last-30-days": "2025-12-17 to 2026-01-15, against 2025-11-17 to 2025-12-16",
        "last-90-days": "2025-10-18 to 2026-01-15, against 2025-07-20 to 2025-10-17",
        "last-month": "2025-12-01 to 2025-12-31, against 2025-11-01 to 2025-11-30",
      };
      for (const [period, label] of Object.entries(expected)) {
        const text = promptText(
          await demo.client.getPrompt({ name: "visibility_report", arguments: { project: "Acme", period } }),
        );
        expect(text.split("\n")[0]).toBe(
          `Visibility report for the analytics project Acme (${ACME_URL}): ${label}.`,
        );
        for (const { tool, args } of callsIn(text)) {
          const rows = ((await demo.call(tool, args)).structuredContent as { data: unknown[] }).data;
          expect(rows.length, `${period}: ${tool}`).toBeGreaterThan(0);
        }
      }
      const months = await complete(demo, "visibility_report", "period", "20");
      expect(months.completion.values.slice(0, 2)).toEqual(["2026-01", "2025-12"]);
    } finally {
      await demo.close();
    }
  });

  it("is not mentioned, and periods end at the clock's today, off the sandbox", async () => {
    vi.useFakeTimers({ now: new Date("2026-11-25T10:00:00Z"), toFake: ["Date"] });
    expect(mcp.client.getInstructions()).toBe(INSTRUCTIONS);
    const text = promptText(
      await mcp.client.getPrompt({
        name: "visibility_report",
        arguments: { project: "Acme", period: "last-7-days" },
      }),
    );
    expect(text.split("\n")[0]).toBe(
      `Visibility report for the analytics project Acme (${ACME_URL}): 2026-11-19 to 2026-11-25, against 2026-11-12 to 2026-11-18.`,
    );
  });
});

describe("task_triage", () => {
  it("renders the walk through whoami, the counts and the urgent tasks", async () => {
    const id = sandbox.workspaceProjectId;
    const result = await mcp.client.getPrompt({
      name: "task_triage",
      arguments: { project: "Growth Marketing" },
    });
    expect(promptText(result)).toBe(
      `Triage of the workspace project Growth Marketing.

1. \`whoami\` gives it the project_id ${id}, used below.
2. Tasks per status: call \`tasks_query\` with \`{"project_id":"${id}","view":"counts","group_by":"status"}\`
3. Tasks per priority: call \`tasks_query\` with \`{"project_id":"${id}","view":"counts","group_by":"priority"}\`
4. The urgent tasks (page on with next_cursor while has_more; the API documents neither the filter's keys nor its status values, so if it answers 422 follow what it names): call \`tasks_query\` with \`{"project_id":"${id}","view":"list","query":{"filter":{"priority":"urgent"}}}\`

Show the counts as charts (hosts with MCP Apps draw them in this server's report view; elsewhere, a table). Then list the urgent tasks that are still open (leave out done, cancelled and the like) as a table: identifier, title, status, assignee, due date, the earliest due first; and say which to take first and why.`,
    );
    expect(sent()).toEqual([{ method: "GET", path: "/api/v1/business/whoami", body: undefined }]);
  });

  it("asks for counts by status and priority and a list of urgent tasks only, all valid calls", async () => {
    const text = promptText(
      await mcp.client.getPrompt({ name: "task_triage", arguments: { project: "platform" } }),
    );
    const calls = callsIn(text);
    expect(calls.map((call) => call.tool)).toEqual(["tasks_query", "tasks_query", "tasks_query"]);
    for (const { tool, args } of calls) {
      expect(PREPARED_TOOLS.get(tool)?.input.safeParse(args).success, tool).toBe(true);
    }
    const [byStatus, , urgent] = await Promise.all(calls.map(({ tool, args }) => mcp.call(tool, args)));
    expect(byStatus?.structuredContent).toMatchObject({ group_by: "status" });
    const { items } = (urgent?.structuredContent ?? {}) as { items: { priority: string }[] };
    expect(items.length).toBeGreaterThan(0);
    expect(new Set(items.map((task) => task.priority))).toEqual(new Set(["urgent"]));
  });
});

describe("prompts/get refuses arguments it cannot use, with -32602 and what to give", () => {
  it.each([
    [
      "an unknown project",
      "visibility_report",
      { project: "Nope", period: "2025-12" },
      'visibility_report: no analytics project "Nope" for this API key; geo_projects lists: Acme, Acme Labs, Inbox',
    ],
    [
      "a workspace project the key cannot see",
      "task_triage",
      { project: "Finance" },
      'task_triage: no workspace project "Finance" for this API key; whoami lists: Growth Marketing, Platform, Inbox',
    ],
    [
      "a month that does not exist",
      "visibility_report",
      { project: "Acme", period: "2025-13" },
      'visibility_report: period "2025-13" is not a period; use last-7-days, last-30-days, last-90-days, last-month, a month YYYY-MM, or days YYYY-MM-DD..YYYY-MM-DD (UTC)',
    ],
    [
      "a range that ends before it starts",
      "visibility_report",
      { project: "Acme", period: "2025-12-10..2025-12-01" },
      'visibility_report: period "2025-12-10..2025-12-01" ends before it starts; use last-7-days, last-30-days, last-90-days, last-month, a month YYYY-MM, or days YYYY-MM-DD..YYYY-MM-DD (UTC)',
    ],
    [
      "a missing argument",
      "visibility_report",
      { project: "Acme" },
      "visibility_report needs period. period: last-7-days, last-30-days, last-90-days, last-month, a month YYYY-MM, or days YYYY-MM-DD..YYYY-MM-DD (UTC).",
    ],
    [
      "an empty one",
      "task_triage",
      { project: "  " },
      "task_triage needs project. project: Workspace project: its name or id (whoami).",
    ],
    [
      "an argument it does not take",
      "task_triage",
      { project: "Platform", period: "2025-12" },
      'task_triage: no argument "period"; its arguments: project',
    ],
    [
      "an overlong value",
      "task_triage",
      { project: "x".repeat(201) },
      "task_triage: project is longer than 200 characters",
    ],
  ])("%s", async (_case, name, args, message) => {
    await expect(mcp.client.getPrompt({ name, arguments: args })).rejects.toMatchObject({
      code: -32602,
      message,
    });
    // Only a project is looked up, and only once the other arguments are right.
    const lookedUp = sent().map((request) => request.path);
    expect(lookedUp).toEqual(
      message.includes("no analytics project")
        ? ["/v2/geo/business/projects"]
        : message.includes("no workspace project")
          ? ["/api/v1/business/whoami"]
          : [],
    );
  });

  it("an unknown prompt, naming those there are", async () => {
    await expect(mcp.client.getPrompt({ name: "weekly_digest" })).rejects.toMatchObject({
      code: -32602,
      message: 'Unknown prompt: "weekly_digest" does not exist. Available: visibility_report, task_triage.',
    });
  });

  it("a name two projects share, asking for the id", async () => {
    const twins = await startOnRecorder({ workspaceApiKey: "key-twins" }, () => ({
      body: {
        projects: [
          { id: "11111111-1111-1111-1111-111111111111", name: "Web" },
          { id: "22222222-2222-2222-2222-222222222222", name: "web" },
        ],
      },
    }));
    try {
      await expect(
        twins.client.getPrompt({ name: "task_triage", arguments: { project: "WEB" } }),
      ).rejects.toMatchObject({
        code: -32602,
        message:
          'task_triage: 2 workspace projects are named "WEB": give one\'s id (11111111-1111-1111-1111-111111111111, 22222222-2222-2222-2222-222222222222)',
      });
      const text = promptText(
        await twins.client.getPrompt({
          name: "task_triage",
          arguments: { project: "22222222-2222-2222-2222-222222222222" },
        }),
      );
      expect(text.split("\n")[0]).toBe("Triage of the workspace project web.");
    } finally {
      await twins.close();
    }
  });
});

describe("prompts/get when the project cannot be looked up", () => {
  it("without a key: -32603 naming the variable to set, nothing sent", async () => {
    const keyless = await startOnRecorder({});
    try {
      await expect(
        keyless.client.getPrompt({ name: "task_triage", arguments: { project: "x" } }),
      ).rejects.toMatchObject({
        code: -32603,
        message: expect.stringMatching(
          /^task_triage: could not check its arguments\. whoami: WORKSPACE_API_KEY is not set/,
        ),
      });
      expect(keyless.upstream.requests).toEqual([]);
    } finally {
      await keyless.close();
    }
  });

  it("an upstream that refuses the key: -32603 with the status, never the key", async () => {
    const key = "key-refused-1234567890";
    const refused = await startOnRecorder({ analyticsApiKey: key }, () => ({
      status: 401,
      body: { detail: `bad key ${key}` },
    }));
    try {
      const error = await refused.client
        .getPrompt({ name: "visibility_report", arguments: { project: "Acme", period: "2025-12" } })
        .catch((caught: unknown) => caught as { code: number; message: string });
      expect(error).toMatchObject({
        code: -32603,
        message: expect.stringMatching(
          /^visibility_report: could not check its arguments\. geo_projects: .*401/,
        ),
      });
      expect(error.message).not.toContain(key);
      expect(logLines().join("")).not.toContain(key);
      expect(logLines().some((line) => line.includes('"message":"prompt lookup failed"'))).toBe(true);
    } finally {
      await refused.close();
    }
  });
});

describe("completion/complete", () => {
  it("completes a visibility_report project from geo_projects, by the typed prefix", async () => {
    expect(await complete(mcp, "visibility_report", "project", "acme l")).toEqual({
      completion: { values: ["Acme Labs"], total: 1, hasMore: false },
    });
    expect(await complete(mcp, "visibility_report", "project", "")).toEqual({
      completion: { values: ["Acme", "Acme Labs", "Inbox"], total: 3, hasMore: false },
    });
    // The second answer came from the cache.
    expect(sent()).toEqual([{ method: "POST", path: "/v2/geo/business/projects", body: {} }]);
  });

  it("completes a task_triage project from whoami", async () => {
    expect(await complete(mcp, "task_triage", "project", "p")).toEqual({
      completion: { values: ["Platform"], total: 1, hasMore: false },
    });
    expect(sent()).toEqual([{ method: "GET", path: "/api/v1/business/whoami", body: undefined }]);
  });

  it("completes a topic and a competitor within the project typed so far", async () => {
    expect(await complete(mcp, "visibility_report", "topic", "p", { project: "Acme" })).toEqual({
      completion: { values: ["Pricing", "Project management"], total: 2, hasMore: false },
    });
    expect(await complete(mcp, "visibility_report", "competitor", "g", { project: "Acme" })).toEqual({
      completion: { values: ["Globex"], total: 1, hasMore: false },
    });
    const id = sandbox.analyticsProjectId;
    expect(sent()).toEqual([
      { method: "POST", path: "/v2/geo/business/projects", body: {} },
      {
        method: "POST",
        path: "/v2/geo/business/topics",
        body: { project_id: id, order_by: [{ field: "name", order: "asc" }], pagination: { limit: 100 } },
      },
      {
        method: "POST",
        path: "/v2/geo/business/websites",
        body: {
          project_id: id,
          metrics: ["mentions_count"],
          order_by: [{ field: "mentions_count", order: "desc" }],
          pagination: { limit: 100 },
        },
      },
    ]);
  });

  it("completes a topic of the default project when none is typed, and nothing without geo_topics", async () => {
    const topics = await complete(mcp, "visibility_report", "topic", "se");
    expect(topics.completion.values).toEqual(["Security"]);
    const noTopics = await startInMemory(sandboxSettings(sandbox), {
      tools: selectTools({
        toolsets: ["analytics"],
        readOnly: false,
        tools: [...ALL].filter((t) => t !== "geo_topics"),
      }),
    });
    try {
      expect(await complete(noTopics, "visibility_report", "topic", "se", { project: "Acme" })).toEqual({
        completion: { values: [], total: 0, hasMore: false },
      });
    } finally {
      await noTopics.close();
    }
  });

  it("completes the period from the named ranges and the last twelve months", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-02-10T12:00:00Z"));
    expect(await complete(mcp, "visibility_report", "period", "")).toEqual({
      completion: {
        values: [
          "last-7-days",
          "last-30-days",
          "last-90-days",
          "last-month",
          "2026-02",
          "2026-01",
          "2025-12",
          "2025-11",
          "2025-10",
          "2025-09",
          "2025-08",
          "2025-07",
          "2025-06",
          "2025-05",
          "2025-04",
          "2025-03",
        ],
        total: 16,
        hasMore: false,
      },
    });
    expect((await complete(mcp, "visibility_report", "period", "2025-1")).completion.values).toEqual([
      "2025-12",
      "2025-11",
      "2025-10",
    ]);
    expect(sent()).toEqual([]);
  });

  it("an argument without values, or a resource reference, completes to nothing; an unknown prompt is -32602", async () => {
    const empty = { completion: { values: [], total: 0, hasMore: false } };
    expect(await complete(mcp, "task_triage", "status", "x")).toEqual(empty);
    expect(
      await mcp.client.complete({
        ref: { type: "ref/resource", uri: "ui://x" },
        argument: { name: "a", value: "" },
      }),
    ).toEqual(empty);
    await expect(complete(mcp, "nope", "project", "")).rejects.toMatchObject({ code: -32602 });
    expect(sent()).toEqual([]);
  });
});

describe("completion from a recording upstream", () => {
  let harness: RecordedHarness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it("does not keep a person typing waiting: a slow listing gives no values now, and the next keystroke its values", async () => {
    const wait = completionWait.ms;
    completionWait.ms = 20;
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    try {
      harness = await startOnRecorder({ workspaceApiKey: "key-slow" }, async () => {
        await held;
        return { body: { projects: [{ id: "p1", name: "Platform" }] } };
      });
      expect(await complete(harness, "task_triage", "project", "pl")).toEqual({
        completion: { values: [], total: 0, hasMore: false },
      });
      release();
      await vi.waitFor(() => expect(harness?.upstream.requests).toHaveLength(1));
      completionWait.ms = wait;
      expect((await complete(harness, "task_triage", "project", "pla")).completion).toEqual({
        values: ["Platform"],
        total: 1,
        hasMore: false,
      });
      // One request served both keystrokes.
      expect(harness.upstream.requests.map((request) => request.path)).toEqual(["/api/v1/business/whoami"]);
    } finally {
      completionWait.ms = wait;
      release();
    }
  });

  it("answers at most 100 values, with the total and hasMore", async () => {
    const projects = Array.from({ length: 150 }, (_, i) => ({
      id: `00000000-0000-0000-0000-${String(i).padStart(12, "0")}`,
      name: `Project ${String(i).padStart(3, "0")}`,
    }));
    harness = await startOnRecorder({ workspaceApiKey: "key-many" }, () => ({ body: { projects } }));
    const all = await complete(harness, "task_triage", "project", "project");
    expect(all.completion).toEqual({
      values: projects.slice(0, 100).map((p) => p.name),
      total: 150,
      hasMore: true,
    });
    const few = await complete(harness, "task_triage", "project", "Project 14");
    expect(few.completion).toEqual({
      values: projects.slice(140, 150).map((p) => p.name),
      total: 10,
      hasMore: false,
    });
  });

  it("says hasMore, without a total, when the API holds more topics than one page", async () => {
    const id = "33333333-3333-3333-3333-333333333333";
    harness = await startOnRecorder({ analyticsApiKey: "key-topics", analyticsProjectId: id }, () => ({
      body: { data: [{ id: "t1", name: "Alpha" }], info: { total_rows: 250 } },
    }));
    expect((await complete(harness, "visibility_report", "topic", "a")).completion).toEqual({
      values: ["Alpha"],
      hasMore: true,
    });
  });

  it("keeps a listing per API key for a short while: another key asks again, so does the same one later", async () => {
    const respond = () => ({
      body: { projects: [{ id: "44444444-4444-4444-4444-444444444444", name: "Ops" }] },
    });
    harness = await startOnRecorder({ workspaceApiKey: "key-a" }, respond);
    const other = await startInMemory({ workspaceBaseUrl: harness.upstream.url, workspaceApiKey: "key-b" });
    try {
      vi.useFakeTimers({ toFake: ["Date"] });
      vi.setSystemTime(new Date("2026-02-10T12:00:00Z"));
      await complete(harness, "task_triage", "project", "");
      await complete(harness, "task_triage", "project", "o");
      await complete(other, "task_triage", "project", "o");
      expect(harness.upstream.requests.map((r) => r.headers["x-api-key"])).toEqual(["key-a", "key-b"]);
      vi.setSystemTime(new Date("2026-02-10T12:00:31Z"));
      expect((await complete(harness, "task_triage", "project", "o")).completion.values).toEqual(["Ops"]);
      expect(harness.upstream.requests.map((r) => r.headers["x-api-key"])).toEqual([
        "key-a",
        "key-b",
        "key-a",
      ]);
    } finally {
      await other.close();
    }
  });

  it("fails soft: an upstream error gives no values, is not cached, and logs no key", async () => {
    const key = "key-failing-0987654321";
    let status = 500;
    harness = await startOnRecorder({ workspaceApiKey: key, retryBudgetMs: 0 }, () => ({
      status,
      body:
        status === 200 ? { projects: [{ id: "55555555-5555-5555-5555-555555555555", name: "Back" }] } : {},
    }));
    expect(await complete(harness, "task_triage", "project", "")).toEqual({
      completion: { values: [], total: 0, hasMore: false },
    });
    status = 200;
    expect((await complete(harness, "task_triage", "project", "")).completion.values).toEqual(["Back"]);
    const log = logLines().join("");
    expect(log).toContain(
      '"message":"completion lookup failed","prompt":"task_triage","argument":"project","status":500',
    );
    expect(log).not.toContain(key);
  });

  it("never hands the API key back, in a value or in a prompt's text", async () => {
    const key = "key-echoed-1234567890";
    const projects = [
      { id: "66666666-6666-6666-6666-666666666666", name: `Leak ${key}` },
      { id: "77777777-7777-7777-7777-777777777777", name: "Legit" },
    ];
    harness = await startOnRecorder({ workspaceApiKey: key }, () => ({ body: { projects } }));
    expect((await complete(harness, "task_triage", "project", "le")).completion.values).toEqual(["Legit"]);
    const text = promptText(
      await harness.client.getPrompt({
        name: "task_triage",
        arguments: { project: "66666666-6666-6666-6666-666666666666" },
      }),
    );
    expect(text.split("\n")[0]).toBe("Triage of the workspace project Leak [redacted].");
  });

  it("fails soft without a key too, sending nothing", async () => {
    harness = await startOnRecorder({});
    expect(await complete(harness, "visibility_report", "project", "")).toEqual({
      completion: { values: [], total: 0, hasMore: false },
    });
    expect(harness.upstream.requests).toEqual([]);
  });
});

describe("the period argument", () => {
  const now = new Date("2026-03-15T23:30:00Z");
  it.each([
    ["last-7-days", "2026-03-09", "2026-03-15", "2026-03-02", "2026-03-08"],
    ["last-30-days", "2026-02-14", "2026-03-15", "2026-01-15", "2026-02-13"],
    ["LAST-90-DAYS", "2025-12-16", "2026-03-15", "2025-09-17", "2025-12-15"],
    ["last-month", "2026-02-01", "2026-02-28", "2026-01-01", "2026-01-31"],
    ["2026-03", "2026-03-01", "2026-03-31", "2026-02-01", "2026-02-28"],
    ["2025-01", "2025-01-01", "2025-01-31", "2024-12-01", "2024-12-31"],
    ["2026-02-27..2026-03-02", "2026-02-27", "2026-03-02", "2026-02-23", "2026-02-26"],
    [" 2026-03-15..2026-03-15 ", "2026-03-15", "2026-03-15", "2026-03-14", "2026-03-14"],
  ])("%s: %s to %s, compared with %s to %s", (period, start, end, previousStart, previousEnd) => {
    expect(resolvePeriod(period, now)).toEqual({
      start_date: `${start}T00:00:00Z`,
      end_date: end,
      comparison_start_date: `${previousStart}T00:00:00Z`,
      comparison_end_date: previousEnd,
      label: `${start} to ${end}`,
      comparisonLabel: `${previousStart} to ${previousEnd}`,
    });
  });

  it.each([
    ["2026-04", "is a month that has not begun"],
    ["2026-02-30..2026-03-01", "names a day that does not exist"],
    ["2026-03-16..2026-03-20", "starts after today"],
    ["last-week", "is not a period"],
    ["2026-3", "is not a period"],
  ])("%s %s", (period, reason) => {
    expect(resolvePeriod(period, now)).toEqual({
      error: `period "${period}" ${reason}; use last-7-days, last-30-days, last-90-days, last-month, a month YYYY-MM, or days YYYY-MM-DD..YYYY-MM-DD (UTC)`,
    });
  });
});

describe("the docs", () => {
  const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");

  it("docs/prompts.md shows what task_triage renders for Platform on the sandbox", async () => {
    const doc = read("docs/prompts.md");
    const block = /What the assistant receives[\s\S]*?```text\n([\s\S]*?)\n```/.exec(doc)?.[1];
    const result = await mcp.client.getPrompt({ name: "task_triage", arguments: { project: "Platform" } });
    expect(block).toBe(promptText(result));
  });

  it("docs/prompts.md gives the completion's wait", () => {
    const text = readFileSync(new URL("../../docs/prompts.md", import.meta.url), "utf8").replaceAll(
      "\n",
      " ",
    );
    expect(text).toContain(`a listing not read within ${completionWait.ms / 1000} seconds`);
  });

  it("the README lists every prompt with its arguments, optional ones marked", () => {
    const readme = read("README.md");
    const section = readme.slice(
      readme.indexOf("## Prompts"),
      readme.indexOf("\n## ", readme.indexOf("## Prompts") + 1),
    );
    const rows = [...section.matchAll(/^\| `(\w+)` \| ([^|]+) \|/gm)].map((m) => [m[1], m[2]?.trim()]);
    expect(rows).toEqual(
      PROMPTS.map((prompt) => {
        const names = (required: boolean) =>
          prompt.arguments.filter((a) => a.required === required).map((a) => `\`${a.name}\``);
        const optional = names(false);
        return [
          prompt.name,
          [names(true).join(", "), ...(optional.length ? [`optional ${optional.join(", ")}`] : [])].join(
            "; ",
          ),
        ];
      }),
    );
  });
});
