// The GEO workflows' answers drawn by the report view in Debian's chromium: each workflow rendered by the
// built server on --demo over HTTP, every call it asks for made as written, and each answer of a tool the
// view draws mounted in the host page (host/host.ts): a chart with a mark per row. Where an answer carries
// change columns, the view offers them as measures and draws the one chosen, a bar per row with a change.
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CallToolResult, Client, Tool } from "@modelcontextprotocol/client";
import type { BrowserContext, FrameLocator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WORKFLOWS } from "../../src/prompts/workflows.js";
import { REPORT_VIEW_TOOLS, REPORT_VIEW_URI } from "../../src/views/report-view.js";
import { nameOf } from "../../view/model.js";
import { listeningUrl } from "../every-tool.js";
import { callsIn, promptText, WORKFLOW_CASES } from "../prompts/prompt-helpers.js";
import { hostPage, launchChromium, openHost, spawnDemoServer, viewClient } from "./chromium.js";

interface HostWindow {
  mountView(options: unknown): Promise<void>;
}
type Table = { columns: string[]; rows: unknown[][] };

let server: ChildProcess;
let client: Client;
let tools: Tool[];
let html: string;
let hostServer: Server;
let context: BrowserContext;
let page: Page;
let profile: string;
const pageErrors: string[] = [];

beforeAll(async () => {
  server = spawnDemoServer([], { MCP_RESPONSE_FORMAT: "concise" });
  client = await viewClient(await listeningUrl(server));
  tools = (await client.listTools()).tools;
  html = ((await client.readResource({ uri: REPORT_VIEW_URI })).contents[0] as { text: string }).text;
  const host = await hostPage();
  hostServer = host.server;
  profile = mkdtempSync(join(tmpdir(), "workflows-chromium-"));
  context = await launchChromium(profile, { viewport: { width: 940, height: 900 } });
  page = await openHost(context, host.url, pageErrors, (params) =>
    client.callTool({ name: params.name, arguments: params.arguments }),
  );
});

afterAll(async () => {
  await context?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
  await client?.close();
  server?.kill();
  await new Promise((resolve) => hostServer?.close(resolve));
});

let mounted = 0;

async function mount(
  name: string,
  args: Record<string, unknown>,
  result: CallToolResult,
): Promise<FrameLocator> {
  const tool = tools.find((item) => item.name === name);
  await page.evaluate((options) => (globalThis as unknown as HostWindow).mountView(options), {
    html,
    tool: { name, title: tool?.title, inputSchema: tool?.inputSchema as Record<string, unknown> },
    args,
    result: result as unknown as Record<string, unknown>,
    theme: "light",
  });
  mounted += 1;
  const frame = page.frameLocator("#view");
  await expect.poll(() => frame.locator("#chart").getAttribute("data-drawn")).toBe("1");
  return frame;
}

const marks = (frame: FrameLocator) => frame.locator("#canvas .ct-bar, #canvas .ct-point").count();

describe("the GEO workflows' answers in the report view", () => {
  it.each(WORKFLOWS.map((workflow) => [workflow.name]))(
    "%s: every answer the view draws is a chart, its change columns too",
    async (name) => {
      const args = WORKFLOW_CASES[name]?.[0] ?? {};
      const text = promptText(await client.getPrompt({ name, arguments: args }));
      const calls = callsIn(text);
      expect(calls.length).toBeGreaterThan(0);
      let drawn = 0;
      for (const call of calls) {
        const result = (await client.callTool({ name: call.tool, arguments: call.args })) as CallToolResult;
        expect(result.isError, call.tool).toBeFalsy();
        if (!REPORT_VIEW_TOOLS.has(call.tool)) continue;
        const table = (result.structuredContent as { data: Table }).data;
        const frame = await mount(call.tool, call.args, result);
        expect(await frame.locator("#chart").getAttribute("data-chart-kind")).not.toBe("none");
        expect(await marks(frame)).toBeGreaterThan(0);
        expect(await frame.locator("#table tbody tr").count()).toBe(table.rows.length);
        drawn += 1;
        const change = table.columns.find((column) => column.endsWith("_change"));
        if (!change) continue;
        const options = await frame
          .locator("#measure option")
          .evaluateAll((items) => items.map((item) => (item as unknown as { value: string }).value));
        expect(options).toEqual(expect.arrayContaining([change, `${change}_pct`]));
        await frame.locator("#measure").selectOption(change);
        await expect.poll(() => frame.locator("#chart").getAttribute("data-drawn")).toBe("2");
        expect(await frame.locator("#chart-title").textContent()).toContain(nameOf(change));
        const at = table.columns.indexOf(change);
        const withChange = table.rows.filter((row) => typeof row[at] === "number").length;
        if (table.columns.includes("topic") || table.columns.includes("model")) {
          expect(await marks(frame)).toBeGreaterThan(0);
        } else {
          expect(await marks(frame)).toBe(withChange);
        }
      }
      // geo_citations' rows have no documented measure: citation_sources is tables only.
      expect(drawn).toBe(calls.filter((call) => REPORT_VIEW_TOOLS.has(call.tool)).length);
      expect(pageErrors).toEqual([]);
    },
  );

  it("mounted a view for each drawn answer", () => {
    expect(mounted).toBeGreaterThan(WORKFLOWS.length);
  });
});
