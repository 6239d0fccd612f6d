// The report view (MCP Apps): a client that declares the extension sees the view linked from the tools it
// draws and can read it; every other client sees exactly what it saw without the view; tool results are
// the same bytes with the view and without it; MCP_NO_REPORT_VIEW takes it all away.
import { readFileSync } from "node:fs";
import type { ClientCapabilities } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { REPORT_VIEW_TOOLS, REPORT_VIEW_URI } from "../../src/views/report-view.js";
import { type InMemoryHarness, sandboxSettings, startInMemory } from "../helpers.js";

const MIME = "text/html;profile=mcp-app";
const RENDERS_VIEWS: ClientCapabilities = {
  extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [MIME] } },
};

/** One call per tool the view draws, with arguments that give it numbers to draw. */
const VIEW_CALLS: [string, Record<string, unknown>][] = [
  ["geo_reports_sentiments", { dimensions: ["topic", "model"], measures: ["total_keyword_occurrences"] }],
  ["geo_reports_sentiments", { dimensions: ["date"], date_aggregation_interval: "week" }],
  ["geo_models", { metrics: ["visibility_score", "mentions_count"] }],
  ["geo_websites", { metrics: ["mentions_count", "visibility_score"] }],
  ["geo_topics", { metrics: ["prompts_count"] }],
  ["geo_tags", { metrics: ["query_count", "competitor_count"] }],
  ["geo_prompts", { metrics: ["answers_count"], pagination: { limit: 5 } }],
  ["geo_keywords", { metrics: ["website_count"] }],
  ["tasks_query", { view: "counts", group_by: "status" }],
];

let sandbox: Sandbox;
const open: InMemoryHarness[] = [];
const start = async (options: Parameters<typeof startInMemory>[1]) => {
  const harness = await startInMemory(sandboxSettings(sandbox), options);
  open.push(harness);
  return harness;
};

beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(async () => {
  await Promise.all(open.map((harness) => harness.close()));
  await sandbox.close();
});

describe("a client that renders MCP Apps", () => {
  it("sees the view linked from exactly the tools it draws, under both keys of the extension", async () => {
    const { client } = await start({ capabilities: RENDERS_VIEWS });
    const { tools } = await client.listTools();
    const linked = tools.filter((tool) => tool._meta !== undefined);
    expect(linked.map((tool) => tool.name).sort()).toEqual([...REPORT_VIEW_TOOLS].sort());
    for (const tool of linked) {
      expect(tool._meta).toEqual({ ui: { resourceUri: REPORT_VIEW_URI }, "ui/resourceUri": REPORT_VIEW_URI });
    }
  });

  it("lists and reads the view: one HTML document, the extension's MIME type, no external origin", async () => {
    const { client } = await start({ capabilities: RENDERS_VIEWS });
    expect(client.getServerCapabilities()?.resources).toEqual({});
    const { resources } = await client.listResources();
    expect(resources).toEqual([
      expect.objectContaining({ uri: REPORT_VIEW_URI, name: "report_view", mimeType: MIME }),
    ]);
    const { contents } = await client.readResource({ uri: REPORT_VIEW_URI });
    expect(contents).toHaveLength(1);
    const [content] = contents as [{ uri: string; mimeType: string; text: string; _meta: unknown }];
    expect(content.uri).toBe(REPORT_VIEW_URI);
    expect(content.mimeType).toBe(MIME);
    expect(content._meta).toEqual({
      ui: {
        csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] },
        prefersBorder: true,
      },
    });
    expect(content.text.startsWith("<!doctype html>")).toBe(true);
    // Self-contained: no element that loads anything, no stylesheet import (the browser test sees no request).
    expect(content.text).not.toMatch(/<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)=/i);
    expect(content.text).not.toContain("@import");
    expect((await client.listResourceTemplates()).resourceTemplates).toEqual([]);
  });

  it("answers a read of any other URI as the SDK answers a miss: invalid params (-32602) naming the URI", async () => {
    const { client } = await start({ capabilities: RENDERS_VIEWS });
    const uri = "ui://agent-workspace-mcp/other.html";
    await expect(client.readResource({ uri })).rejects.toMatchObject({ code: -32602, data: { uri } });
  });

  it("lists no view on a server whose tools it draws none of", async () => {
    const { client } = await start({
      capabilities: RENDERS_VIEWS,
      tools: new Set(["whoami", "geo_projects"]),
    });
    expect((await client.listResources()).resources).toEqual([]);
    expect((await client.listTools()).tools.filter((tool) => tool._meta !== undefined)).toEqual([]);
    await expect(client.readResource({ uri: REPORT_VIEW_URI })).rejects.toMatchObject({ code: -32602 });
  });
});

describe("additive", () => {
  it("a client that does not declare the extension gets the same tools/list as a server without the view", async () => {
    const plain = await start({});
    const without = await start({ reportView: false });
    const withView = JSON.stringify(await plain.client.listTools());
    expect(withView).toBe(JSON.stringify(await without.client.listTools()));
    expect(withView).not.toContain("ui://");
  });

  it.each(VIEW_CALLS)(
    "%s %j answers the same text and structuredContent with the view and without",
    async (name, args) => {
      const viewing = await start({ capabilities: RENDERS_VIEWS });
      const without = await start({ reportView: false });
      const [a, b] = await Promise.all([viewing.call(name, args), without.call(name, args)]);
      expect(a.isError).toBeFalsy();
      expect(JSON.stringify(a.structuredContent)).toBe(JSON.stringify(b.structuredContent));
      expect(JSON.stringify(a.content)).toBe(JSON.stringify(b.content));
      expect(Object.keys(a).sort()).toEqual(Object.keys(b).sort());
    },
  );

  it("MCP_NO_REPORT_VIEW: no view listed or to read, no link even for a client that renders views", async () => {
    const { client } = await start({ reportView: false, capabilities: RENDERS_VIEWS });
    // The resources capability stays for the skills' files (src/skills/), which are resources.
    expect((await client.listResources()).resources).toEqual([]);
    expect((await client.listTools()).tools.filter((tool) => tool._meta !== undefined)).toEqual([]);
    await expect(client.readResource({ uri: REPORT_VIEW_URI })).rejects.toThrow();
  });
});

describe("the docs", () => {
  it("name every tool the view draws, its URI and its setting", () => {
    const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
    const section = readme.slice(
      readme.indexOf("## Charts in the conversation"),
      readme.indexOf("## Configuration"),
    );
    const page = readFileSync(new URL("../../docs/report-view.md", import.meta.url), "utf8");
    for (const name of REPORT_VIEW_TOOLS) {
      expect(section).toContain(`\`${name}\``);
      expect(page).toContain(`\`${name}\``);
    }
    expect(section).toContain("MCP_NO_REPORT_VIEW=1");
    expect(page).toContain(REPORT_VIEW_URI);
  });
});
