// The GEO workflows on the sandbox: each rendered, every call it asks for accepted by its tool's schema
// and answered, the message within its token bound; arguments completed as the other prompts' are.
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lookupCache } from "../../src/prompts/lookups.js";
import { fill, type Template, WORKFLOWS } from "../../src/prompts/workflows.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { PREPARED_TOOLS } from "../../src/tools/register.js";
import { type InMemoryHarness, sandboxSettings, startInMemory, startOnRecorder } from "../helpers.js";
import { ACME_URL, callsIn, complete, promptText, WORKFLOW_CASES } from "./prompt-helpers.js";

/** The message's tokens, counted as the tool definitions' are (o200k). */
const tokens = (text: string) => encode(text).length;

describe("the GEO workflows on the sandbox", () => {
  let sandbox: Sandbox;
  let mcp: InMemoryHarness;
  beforeAll(async () => {
    sandbox = await startSandbox();
    mcp = await startInMemory(
      { ...sandboxSettings(sandbox), responseFormat: "concise" },
      { sandboxToday: sandbox.today },
    );
    lookupCache.clear();
  });
  afterAll(async () => {
    await mcp.close();
    await sandbox.close();
  });

  it("are listed as prompts beside the two reports, each with its arguments", async () => {
    const { prompts } = await mcp.client.listPrompts();
    expect(prompts.map((prompt) => prompt.name)).toEqual([
      "visibility_report",
      "task_triage",
      ...WORKFLOWS.map((workflow) => workflow.name),
    ]);
    for (const workflow of WORKFLOWS) {
      const listed = prompts.find((prompt) => prompt.name === workflow.name);
      expect(listed?.arguments).toEqual(workflow.arguments);
    }
  });

  it.each(WORKFLOWS.map((workflow) => [workflow.name]))(
    "%s: every call it asks for is valid and answered, and the message stays under 1,500 tokens",
    async (name) => {
      for (const args of WORKFLOW_CASES[name] ?? []) {
        const text = promptText(await mcp.client.getPrompt({ name, arguments: args }));
        expect(tokens(text), name).toBeLessThan(1500);
        const calls = callsIn(text);
        const workflow = WORKFLOWS.find((candidate) => candidate.name === name);
        expect(calls.length).toBeGreaterThanOrEqual(workflow?.steps.length ?? 0);
        for (const { tool, args: callArgs } of calls) {
          expect(PREPARED_TOOLS.get(tool)?.input.safeParse(callArgs).success, tool).toBe(true);
          const answer = await mcp.call(tool, callArgs);
          expect(answer.isError, `${tool}: ${JSON.stringify(answer.content)}`).toBeFalsy();
          const body = answer.structuredContent as { data: { rows: unknown[] }; range: unknown };
          expect(body.data.rows.length, `${tool} ${JSON.stringify(callArgs)}`).toBeGreaterThan(0);
          expect(body.range).toBeDefined();
        }
      }
    },
  );

  it("weekly_pulse compares the last seven days with the seven before, and the answers carry the changes", async () => {
    const text = promptText(
      await mcp.client.getPrompt({ name: "weekly_pulse", arguments: { project: "Acme" } }),
    );
    const [models] = callsIn(text);
    expect(models?.tool).toBe("geo_models");
    const answer = await mcp.call(models?.tool ?? "", models?.args);
    const { columns } = (answer.structuredContent as { data: { columns: string[] } }).data;
    expect(columns).toEqual(
      expect.arrayContaining([
        "previous_visibility_score",
        "visibility_score_change",
        "visibility_score_change_pct",
      ]),
    );
  });

  it("competitor_comparison makes one websites call per model, the project's url and each competitor in it", async () => {
    const text = promptText(
      await mcp.client.getPrompt({
        name: "competitor_comparison",
        arguments: { project: "Acme", competitors: "Globex, Initech" },
      }),
    );
    const calls = callsIn(text).filter((call) => call.tool === "geo_websites");
    const models = (await mcp.call("geo_models", { project_id: sandbox.ids.analyticsProjects[0] }))
      .structuredContent as { data: { columns: string[]; rows: unknown[][] } };
    const name = models.data.columns.indexOf("name");
    expect(
      calls.map(
        (call) =>
          (call.args.filters as { platform: { items: { value: string }[] } }).platform.items[0]?.value,
      ),
    ).toEqual(models.data.rows.map((row) => row[name]));
    expect((calls[0]?.args.filters as { advanced_filters?: unknown } | undefined)?.advanced_filters).toEqual({
      join: "or",
      conditions: [
        { field: "url", operator: "is", value: ACME_URL },
        { field: "name", operator: "is", value: "Globex" },
        { field: "name", operator: "is", value: "Initech" },
      ],
    });
  });

  it("refuses a competitor the project's websites do not name, listing those there are", async () => {
    await expect(
      mcp.client.getPrompt({
        name: "competitor_comparison",
        arguments: { project: "Acme", competitors: "Nobody" },
      }),
    ).rejects.toThrow(/no website "Nobody" for this API key; geo_websites lists: /);
  });

  it("completes the competitors one name at a time, after the names already typed", async () => {
    const first = await complete(mcp, "competitor_comparison", "competitors", "Glo", { project: "Acme" });
    expect(first.completion.values).toEqual(["Globex"]);
    const next = await complete(mcp, "competitor_comparison", "competitors", "Globex, In", {
      project: "Acme",
    });
    expect(next.completion.values).toEqual(["Globex, Initech"]);
  });

  it("completes project, period and topic as the other prompts do", async () => {
    expect((await complete(mcp, "topic_by_model", "project", "Acme")).completion.values).toEqual([
      "Acme",
      "Acme Labs",
    ]);
    expect((await complete(mcp, "weekly_pulse", "period", "last-7")).completion.values).toEqual([
      "last-7-days",
    ]);
    expect(
      (await complete(mcp, "citation_sources", "topic", "Pri", { project: "Acme" })).completion.values,
    ).toEqual(["Pricing"]);
  });
});

describe("the call templates", () => {
  it("fill slots, drop a part whose slot has no value, and repeat a part per value", () => {
    const topics: Template = { $when: "topic", value: { items: [{ operator: "is", value: "{topic}" }] } };
    const template: Template = {
      project_id: "{project_id}",
      start_date: { $when: "start_date", value: "{start_date}" },
      filters: {
        topics,
        advanced_filters: {
          conditions: [{ $each: "competitor", value: { field: "name", value: "{competitor}" } }],
        },
      },
    };
    expect(fill(template, { project_id: "p", competitor: ["A", "B"] })).toEqual({
      project_id: "p",
      filters: {
        advanced_filters: {
          conditions: [
            { field: "name", value: "A" },
            { field: "name", value: "B" },
          ],
        },
      },
    });
    expect(fill({ filters: { topics } }, {})).toEqual({});
    expect(fill(template, {}, (slot) => `<${slot}>`)).toMatchObject({
      project_id: "<project_id>",
      filters: { advanced_filters: { conditions: [{ value: "<competitor>" }] } },
    });
  });

  it("a project geo_projects gives no url cannot be compared: -32602 saying so, nothing else sent", async () => {
    const PROJECT = "0f8fad5b-d9cb-469f-a165-70867728950e";
    const mcp = await startOnRecorder({ analyticsApiKey: "k" }, (request) => ({
      body: request.path.endsWith("/projects")
        ? { data: [{ id: PROJECT, name: "Bare" }] }
        : { data: [{ id: "1f8fad5b-d9cb-469f-a165-70867728950e", name: "Globex" }], info: { total_rows: 1 } },
    }));
    try {
      await expect(
        mcp.client.getPrompt({ name: "citation_sources", arguments: { project: "Bare" } }),
      ).rejects.toMatchObject({
        code: -32602,
        message: "citation_sources: geo_projects gives this project no url, which this analysis needs",
      });
      expect(mcp.upstream.requests.map((request) => request.path)).toEqual(["/v2/geo/business/projects"]);
    } finally {
      await mcp.close();
    }
  });
});
