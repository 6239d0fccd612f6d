// The report view in a real browser: Debian's chromium (playwright-core, never a downloaded browser)
// loads a host page that mounts the view with the extension's AppBridge; the bridge's tools/call go to
// SDK v2's client of the built server on --demo over real HTTP. For every tool the view draws, in light
// and dark: the chart drew what the rows say (marks against rows, axis labels, legend, the table), and a
// change of range (or grouping, page, interval) is a new tools/call whose answer is drawn.
// The README's three pictures are taken every run, into a temporary folder; REPORT_VIEW_SCREENSHOTS=docs
// writes them over the committed ones.
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CallToolResult, Client, Tool } from "@modelcontextprotocol/client";
import type { BrowserContext, FrameLocator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ATTACKS } from "../../src/sandbox/hostile-text.js";
import { sanitizeText } from "../../src/tools/sanitize.js";
import { REPORT_VIEW_URI } from "../../src/views/report-view.js";
import { nameOf, shortLabel } from "../../view/model.js";
import { listeningUrl } from "../every-tool.js";
import { hostPage, launchChromium, MIME, openHost, spawnDemoServer, viewClient } from "./chromium.js";

/** Beside the common flags: nothing the browser would fetch by itself (the test holds every request). */
const EXTRA_CHROMIUM_ARGS = ["--disable-quic", "--disable-component-update", "--disable-sync"];

/** What the host page (host/host.ts) offers the test, as seen from page.evaluate. */
interface HostWindow {
  mountView(options: unknown): Promise<void>;
  setTheme(theme: "light" | "dark"): Promise<void>;
  getComputedStyle(element: unknown): { backgroundColor: string };
}

const SCREENSHOTS = process.env.REPORT_VIEW_SCREENSHOTS;

type Args = Record<string, unknown>;
type Theme = "light" | "dark";

/** What a case must draw: the chart kind, its label column, the split column (series) and the measure. */
interface Expect {
  kind: "lines" | "bars" | "grouped-bars";
  x: string;
  split?: string;
  measure: string;
}

interface Case {
  name: string;
  args: Args;
  expect: Expect;
  /** The interaction: what the reader does, and the arguments the next tools/call must carry. */
  change: "range" | "group_by" | "page" | "interval";
}

const CASES: Case[] = [
  {
    name: "geo_reports_sentiments",
    args: {
      dimensions: ["date"],
      date_aggregation_interval: "week",
      measures: ["total_keyword_occurrences"],
    },
    expect: { kind: "lines", x: "date", measure: "total_keyword_occurrences" },
    change: "range",
  },
  {
    name: "geo_reports_sentiments",
    args: { dimensions: ["topic", "model"], measures: ["total_keyword_occurrences"] },
    expect: { kind: "grouped-bars", x: "topic", split: "model", measure: "total_keyword_occurrences" },
    change: "range",
  },
  {
    name: "geo_reports_sentiments",
    args: { dimensions: ["date", "model"], date_aggregation_interval: "week", measures: ["positive_share"] },
    expect: { kind: "lines", x: "date", split: "model", measure: "positive_share" },
    change: "interval",
  },
  {
    name: "geo_models",
    args: { metrics: ["visibility_score", "mentions_count"] },
    expect: { kind: "bars", x: "name", measure: "visibility_score" },
    change: "range",
  },
  {
    name: "geo_websites",
    args: { metrics: ["mentions_count", "visibility_score"] },
    expect: { kind: "bars", x: "name", measure: "mentions_count" },
    change: "range",
  },
  {
    name: "geo_topics",
    args: { metrics: ["prompts_count"] },
    expect: { kind: "bars", x: "name", measure: "prompts_count" },
    change: "range",
  },
  {
    name: "geo_tags",
    args: { metrics: ["query_count", "competitor_count"] },
    expect: { kind: "bars", x: "name", measure: "query_count" },
    change: "range",
  },
  {
    name: "geo_prompts",
    args: { metrics: ["answers_count"], pagination: { limit: 8 } },
    expect: { kind: "bars", x: "name", measure: "search_volume" },
    change: "page",
  },
  {
    name: "geo_keywords",
    args: { metrics: ["website_count"] },
    expect: { kind: "bars", x: "keyword", measure: "website_count" },
    change: "range",
  },
  {
    name: "tasks_query",
    args: { view: "counts", group_by: "status" },
    expect: { kind: "bars", x: "status", measure: "count" },
    change: "group_by",
  },
];

let server: ChildProcess;
let client: Client;
let tools: Tool[];
let html: string;
let hostServer: Server;
let hostUrl: string;
let context: BrowserContext;
let page: Page;
let profile: string;
/** Every tools/call the view made through the host, with its answer. */
const viewCalls: { name: string; arguments: Args; result: CallToolResult }[] = [];
/** Every URL the browser asked for. */
const requested: string[] = [];
const pageErrors: string[] = [];

beforeAll(async () => {
  server = spawnDemoServer([], { MCP_RESPONSE_FORMAT: "concise" });
  client = await viewClient(await listeningUrl(server));
  tools = (await client.listTools()).tools;
  const read = await client.readResource({ uri: REPORT_VIEW_URI });
  const content = read.contents[0] as { mimeType: string; text: string };
  expect(content.mimeType).toBe(MIME);
  html = content.text;
  ({ server: hostServer, url: hostUrl } = await hostPage(
    "body{margin:0;background:#888}body[data-theme=dark]{background:#111}",
  ));
  profile = mkdtempSync(join(tmpdir(), "report-view-chromium-"));
  context = await launchChromium(profile, { viewport: { width: 940, height: 900 } }, EXTRA_CHROMIUM_ARGS);
  context.on("request", (request) => requested.push(request.url()));
  page = await openHost(context, hostUrl, pageErrors, async (params) => {
    const result = (await client.callTool({
      name: params.name,
      arguments: params.arguments,
    })) as CallToolResult;
    viewCalls.push({ name: params.name, arguments: params.arguments ?? {}, result });
    return result;
  });
});

afterAll(async () => {
  await context?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
  await client?.close();
  server?.kill();
  await new Promise((resolve) => hostServer?.close(resolve));
});

/** The rows of an answer as the tool returns them: a concise table, or tasks_query's groups. */
function rowsOf(result: CallToolResult): { columns: string[]; rows: unknown[][] } {
  const body = result.structuredContent as Record<string, unknown>;
  if (Array.isArray(body.groups)) {
    return {
      columns: [String(body.group_by), "count"],
      rows: (body.groups as { key: unknown; count: number }[]).map((group) => [
        group.key ?? "(none)",
        group.count,
      ]),
    };
  }
  return body.data as { columns: string[]; rows: unknown[][] };
}

/** What the chart must show for these rows: its labels, series names and number of marks. */
function expected(result: CallToolResult, want: Expect) {
  const { columns, rows } = rowsOf(result);
  const at = (name: string) => columns.indexOf(name);
  const measured = rows.filter((row) => typeof row[at(want.measure)] === "number");
  const labelsOf = (list: unknown[][]) => [...new Set(list.map((row) => String(row[at(want.x)])))];
  const labels = want.kind === "lines" ? labelsOf(rows).sort() : labelsOf(rows);
  const series = want.split ? [...new Set(rows.map((row) => String(row[at(want.split!)])))] : [want.measure];
  const pairs = new Set(
    measured.map((row) => `${row[at(want.x)]}\u0000${want.split ? row[at(want.split)] : ""}`),
  );
  return { columns, rows, labels, series, marks: pairs.size };
}

const texts = (frame: FrameLocator, selector: string) => frame.locator(selector).allTextContents();

/** The chart and the table drew exactly what the rows say. */
async function expectDrawn(frame: FrameLocator, result: CallToolResult, want: Expect) {
  const shown = expected(result, want);
  expect(shown.rows.length).toBeGreaterThan(0);
  const chart = frame.locator("#chart");
  await expect.poll(() => chart.getAttribute("data-chart-kind")).toBe(want.kind);
  // Every column, the chart's label and measure first.
  // Every column named in words, its own name on hover.
  const headers = await texts(frame, "#table thead th");
  expect([...headers].sort()).toEqual(shown.columns.map(nameOf).sort());
  expect(headers[0]).toBe(nameOf(want.x));
  expect(headers).toContain(nameOf(want.measure));
  expect((await frame.locator("#table thead th").first().getAttribute("title")) ?? "").toBe(want.x);
  expect(await frame.locator("#table tbody tr").count()).toBe(shown.rows.length);
  expect(await texts(frame, "#legend li")).toEqual(want.split ? shown.series : [nameOf(want.measure)]);
  const marks = want.kind === "lines" ? ".ct-point" : ".ct-bar";
  expect(await frame.locator(`#canvas ${marks}`).count()).toBe(shown.marks);
  if (want.kind === "lines")
    expect(await frame.locator("#canvas .ct-line").count()).toBe(shown.series.length);
  expect(await frame.locator("#canvas .ct-series").count()).toBe(shown.series.length);
  const horizontal = await texts(frame, "#canvas .ct-label.ct-horizontal");
  const vertical = await texts(frame, "#canvas .ct-label.ct-vertical");
  if (want.kind === "lines") {
    // A long time axis labels every nth date, in order, from the first.
    expect(horizontal[0]).toBe(shown.labels[0]);
    expect(horizontal.every((label) => shown.labels.includes(label))).toBe(true);
  } else {
    const categoryAxis = vertical.some((label) => shown.labels.map((l) => shortLabel(l)).includes(label))
      ? vertical
      : horizontal;
    expect([...categoryAxis].sort()).toEqual(shown.labels.map((label) => shortLabel(label)).sort());
  }
  expect(await frame.locator("#chart-title").textContent()).toContain(nameOf(want.measure));
}

async function mount(testCase: Case, theme: Theme) {
  const tool = tools.find((item) => item.name === testCase.name)!;
  expect(tool._meta).toMatchObject({ ui: { resourceUri: REPORT_VIEW_URI } });
  const result = (await client.callTool({ name: testCase.name, arguments: testCase.args })) as CallToolResult;
  expect(result.isError).toBeFalsy();
  await page.evaluate((options) => (globalThis as unknown as HostWindow).mountView(options), {
    html,
    tool: { name: tool.name, title: tool.title, inputSchema: tool.inputSchema as Record<string, unknown> },
    args: testCase.args,
    result: result as unknown as Record<string, unknown>,
    theme,
  });
  const frame = page.frameLocator("#view");
  await expect.poll(() => frame.locator("#chart").getAttribute("data-drawn")).toBe("1");
  return { frame, result };
}

async function expectTheme(frame: FrameLocator, theme: Theme) {
  const root = frame.locator("html");
  await expect.poll(() => root.getAttribute("data-theme")).toBe(theme);
  const background = await frame
    .locator("body")
    .evaluate((body) => (globalThis as unknown as HostWindow).getComputedStyle(body).backgroundColor);
  expect(background).toBe(theme === "light" ? "rgb(255, 255, 255)" : "rgb(27, 27, 31)");
}

/** The reader's change, the tools/call it must make, and the new answer drawn. */
async function interact(frame: FrameLocator, testCase: Case, first: CallToolResult) {
  const before = viewCalls.length;
  let want: Args;
  if (testCase.change === "range") {
    // The sandbox's data runs from October 2025 to 2026-01-15: the last six weeks of it.
    const [start, end] = ["2025-12-01", "2026-01-15"];
    await frame.locator("#start").fill(start);
    await frame.locator("#end").fill(end);
    await frame.locator("#apply").click();
    want = { ...testCase.args, start_date: start, end_date: end };
  } else if (testCase.change === "group_by") {
    await frame.locator("#dimension").selectOption("priority");
    want = { ...testCase.args, group_by: "priority" };
  } else if (testCase.change === "interval") {
    await frame.locator("#interval").selectOption("month");
    want = { ...testCase.args, date_aggregation_interval: "month" };
  } else {
    const total = (first.structuredContent as { info: { total_rows: number } }).info.total_rows;
    expect(await frame.locator("#page-text").textContent()).toBe(`Rows 1–8 of ${total}`);
    await frame.locator("#next").click();
    want = { ...testCase.args, pagination: { limit: 8, offset: 8 } };
  }
  await expect.poll(() => viewCalls.length).toBe(before + 1);
  const call = viewCalls[before]!;
  expect(call.name).toBe(testCase.name);
  expect(call.arguments).toEqual(want);
  expect(call.result.isError).toBeFalsy();
  await expect.poll(() => frame.locator("#chart").getAttribute("data-drawn")).toBe("2");
  const nextExpect = testCase.change === "group_by" ? { ...testCase.expect, x: "priority" } : testCase.expect;
  await expectDrawn(frame, call.result, nextExpect);
}

describe.each(["light", "dark"] as const)("the report view, %s theme", (theme) => {
  it.each(CASES.map((testCase) => [testCase.name, JSON.stringify(testCase.args), testCase] as const))(
    "%s %s: chart and table from the rows; a change is a new tools/call, drawn",
    async (_name, _args, testCase) => {
      const { frame, result } = await mount(testCase, theme);
      await expectTheme(frame, theme);
      await expectDrawn(frame, result, testCase.expect);
      await interact(frame, testCase, result);
    },
  );
});

describe("the report view in the host", () => {
  it("follows the host's theme when it changes, without a call", async () => {
    const { frame } = await mount(CASES[3]!, "light");
    await expectTheme(frame, "light");
    const before = viewCalls.length;
    await page.evaluate(() => (globalThis as unknown as HostWindow).setTheme("dark"));
    await expectTheme(frame, "dark");
    expect(viewCalls.length).toBe(before);
  });

  it("switches the measure in place, and stacks grouped bars, without a call", async () => {
    const { frame, result } = await mount(CASES[6]!, "light");
    const before = viewCalls.length;
    await frame.locator("#measure").selectOption("competitor_count");
    await expect.poll(() => frame.locator("#chart").getAttribute("data-drawn")).toBe("2");
    await expectDrawn(frame, result, { kind: "bars", x: "name", measure: "competitor_count" });
    const grouped = await mount(CASES[1]!, "light");
    await grouped.frame.locator("#stacked").check();
    await expect
      .poll(() => grouped.frame.locator("#chart").getAttribute("data-chart-kind"))
      .toBe("stacked-bars");
    expect(await grouped.frame.locator("#canvas .ct-bar").count()).toBe(
      expected(grouped.result, CASES[1]!.expect).marks,
    );
    expect(viewCalls.length).toBe(before);
  });

  it("reaches every control by keyboard, and the chart says what it shows", async () => {
    const { frame } = await mount(CASES[0]!, "light");
    const chart = frame.locator("#chart");
    expect(await chart.getAttribute("role")).toBe("img");
    expect(await chart.getAttribute("aria-label")).toMatch(
      /^lines chart of Total keyword occurrences over date/,
    );
    await frame.locator("#apply").focus();
    const order: string[] = [];
    for (let step = 0; step < 6; step++) {
      await page.keyboard.press("Tab");
      order.push(
        await frame.locator("body").evaluate(() => {
          const focused = (
            globalThis as unknown as { document: { activeElement: { id: string; className: string } } }
          ).document.activeElement;
          return focused.id || focused.className;
        }),
      );
    }
    expect(order).toEqual(["interval", "dimension", "split", "measure", "chart", "table-wrap"]);
  });

  it("a page of tasks (tasks_query list) is a table, and the view says there is nothing to chart", async () => {
    const tool = tools.find((item) => item.name === "tasks_query")!;
    const args = { view: "list", query: { pagination: { page_size: 5 } } };
    const result = (await client.callTool({ name: "tasks_query", arguments: args })) as CallToolResult;
    const { items } = result.structuredContent as { items: unknown[] };
    expect(items.length).toBe(5);
    await page.evaluate((options) => (globalThis as unknown as HostWindow).mountView(options), {
      html,
      tool: { name: tool.name, title: tool.title, inputSchema: tool.inputSchema as Record<string, unknown> },
      args,
      result: result as unknown as Record<string, unknown>,
      theme: "light" as const,
    });
    const frame = page.frameLocator("#view");
    await expect.poll(() => frame.locator("#chart").getAttribute("data-chart-kind")).toBe("none");
    expect(await frame.locator("#chart").isHidden()).toBe(true);
    expect(await frame.locator("#status").textContent()).toMatch(
      /^Nothing to chart: A page of tasks is a list/,
    );
    expect(await frame.locator("#table tbody tr").count()).toBe(items.length);
    expect(await frame.locator("#dimension-field").isHidden()).toBe(true);
  });

  it("shows the Inbox project's prompt names as a Markdown reader sees them: as the sanitizer writes them", async () => {
    const projects = (await client.callTool({ name: "geo_projects", arguments: {} })) as CallToolResult;
    const rows = rowsOf(projects);
    const inbox = rows.rows.find((row) => row[rows.columns.indexOf("name")] === "Inbox")!;
    const args = { project_id: inbox[rows.columns.indexOf("id")], metrics: ["answers_count"] };
    const testCase: Case = {
      name: "geo_prompts",
      args,
      expect: { kind: "bars", x: "name", measure: "search_volume" },
      change: "page",
    };
    const { frame, result } = await mount(testCase, "light");
    // The answer carries each name as the sanitizer writes it (twins, no escape to undo), and the view
    // draws that text as it is.
    const sent = JSON.stringify(result.structuredContent);
    const cells = await texts(frame, "#table tbody td");
    for (const name of [ATTACKS.htmlTag, ATTACKS.image]) {
      const written = sanitizeText(name).text;
      expect(written).not.toBe(name);
      expect(sent).toContain(JSON.stringify(written));
      expect(cells).toContain(written);
    }
    expect(cells.filter((cell) => cell.includes("&lt;") || cell.includes("\\["))).toEqual([]);
    const labels = await texts(frame, "#canvas .ct-label");
    expect(labels.length).toBeGreaterThan(0);
    expect(labels.filter((label) => label.includes("&lt;"))).toEqual([]);
  });

  /** Mounts the view on a made-up answer of geo_keywords: a listing with these rows. */
  async function mountRows(rows: unknown[][]) {
    const tool = tools.find((item) => item.name === "geo_keywords")!;
    const structuredContent = { data: { columns: ["keyword", "website_count"], rows }, info: {} };
    await page.evaluate((options) => (globalThis as unknown as HostWindow).mountView(options), {
      html,
      tool: { name: tool.name, title: tool.title, inputSchema: tool.inputSchema as Record<string, unknown> },
      args: {},
      result: { content: [{ type: "text", text: JSON.stringify(structuredContent) }], structuredContent },
      theme: "light" as const,
    });
    const frame = page.frameLocator("#view");
    await expect.poll(() => frame.locator("#chart").getAttribute("data-drawn")).toBe("1");
    return frame;
  }

  it("a long label ends in an ellipsis on the axis, whole on hover and in the table, inside the view", async () => {
    const long = "how do engineering teams compare agent workspace tools for planning and reviews";
    const frame = await mountRows([
      [long, 12],
      ["agent runs", 7],
    ]);
    expect(await frame.locator("#chart").getAttribute("data-chart-kind")).toBe("bars");
    const axis = frame.locator("#canvas span.ct-label.ct-vertical", { hasText: "…" });
    expect(await axis.allTextContents()).toEqual([shortLabel(long)]);
    expect(await axis.getAttribute("title")).toBe(long);
    const cell = frame.locator("#table td.label").first();
    expect(await cell.textContent()).toBe(long);
    // Every axis label starts inside the view: none is cut off at its left edge.
    const view = await frame.locator("html").boundingBox();
    for (const label of await frame.locator("#canvas span.ct-label.ct-vertical").all()) {
      const box = await label.boundingBox();
      expect(box!.x).toBeGreaterThanOrEqual(view!.x);
    }
    expect(await texts(frame, "#table thead th")).toEqual(["Keyword", "Website"]);
  });

  it("values at the edges of the double range are explained, not drawn as an empty chart", async () => {
    const frame = await mountRows([
      ["largest", 1.7976931348623157e308],
      ["smallest", -1.7976931348623157e308],
    ]);
    expect(await frame.locator("#chart").getAttribute("data-chart-kind")).toBe("none");
    expect(await frame.locator("#chart").isHidden()).toBe(true);
    expect(await frame.locator("#status").textContent()).toBe(
      "Nothing to chart: Some values of Website are too large to draw (beyond ±1e300, near the largest number there is). The table shows the rows.",
    );
    expect(await texts(frame, "#table tbody td.num")).toHaveLength(2);
  });

  it("gives its document element the report's height, for hosts that read it rather than the notification", async () => {
    const rows = Array.from({ length: 12 }, (_, i) => [`keyword ${i + 1}`, 12 - i]);
    const frame = await mountRows(rows);
    const heights = () =>
      frame.locator("html").evaluate((html) => ({
        element: html.style.height,
        report: `${Math.ceil(html.ownerDocument.getElementById("report")?.getBoundingClientRect().height ?? 0)}px`,
      }));
    await expect
      .poll(async () => {
        const { element, report } = await heights();
        return element === report;
      })
      .toBe(true);
    const { element } = await heights();
    // The report holds a chart of twelve bars and its table: far more than the empty page's height.
    expect(Number.parseInt(element, 10)).toBeGreaterThan(400);
  });

  it("asked the network for nothing but the host page, and threw nothing", () => {
    expect(new Set(requested)).toEqual(new Set([hostUrl, `${hostUrl}host.js`]));
    expect(pageErrors).toEqual([]);
  });
});

describe("the README's pictures", () => {
  const folder = SCREENSHOTS ?? mkdtempSync(join(tmpdir(), "report-view-shots-"));
  afterAll(() => {
    if (!SCREENSHOTS) rmSync(folder, { recursive: true, force: true });
  });

  it.each([
    ["report-view-lines.png", CASES[2]!, "light"],
    ["report-view-grouped.png", CASES[1]!, "dark"],
    ["report-view-bars.png", CASES[4]!, "light"],
  ] as const)("%s", async (file, testCase, theme) => {
    await page.evaluate((value) => (globalThis as unknown as HostWindow).setTheme(value), theme);
    await mount(testCase, theme);
    const view = page.locator("#view");
    const box = await view.boundingBox();
    await view.screenshot({ path: join(folder, file) });
    // A PNG of the view's own size: the signature, then the IHDR chunk's width and height.
    const png = readFileSync(join(folder, file));
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([
      Math.round(box!.width),
      Math.round(box!.height),
    ]);
  });
});
