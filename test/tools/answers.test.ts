// Answers sized for a model's context, through the SDK client: the concise form by default, full on
// request (the upstream's text byte for byte), and a budget no answer exceeds, with the rows left out
// counted and the exact call that fetches them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setLogLevel } from "../../src/log.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { estimateTokens } from "../../src/tools/tokens.js";
import {
  type InMemoryHarness,
  type Recorder,
  sandboxSettings,
  startInMemory,
  startRecorder,
  textOf,
} from "../helpers.js";

type Row = Record<string, unknown>;
type Table = { columns: string[]; rows: unknown[][] };
interface Truncated {
  shown: number;
  left_out: number;
  budget_tokens: number;
  next_call?: Row;
  note: string;
}

const TASK_FIELDS = [
  "id",
  "identifier",
  "title",
  "status",
  "priority",
  "assignee_type",
  "assignee_id",
  "due_date",
  "comment_count",
  "subtask_count",
];
const SENTIMENTS = {
  dimensions: ["topic", "model", "date"],
  measures: ["total_keyword_occurrences", "unique_positive_keywords"],
};

/** What the concise form keeps of a row: the listed fields that have a value. */
const pick = (row: Row, fields: string[]) =>
  Object.fromEntries(
    fields.filter((field) => row[field] !== null && row[field] !== undefined).map((f) => [f, row[f]]),
  );

describe("answers on the sandbox", () => {
  let sandbox: Sandbox;
  let mcp: InMemoryHarness;
  /** Budget large enough for any answer: the reference for what the budgeted answers leave out. */
  let whole: InMemoryHarness;

  beforeAll(async () => {
    setLogLevel("error");
    sandbox = await startSandbox({ record: true });
    const settings = sandboxSettings(sandbox);
    mcp = await startInMemory({ ...settings, responseFormat: undefined });
    whole = await startInMemory({ ...settings, responseFormat: "full", maxResultTokens: 1_000_000 });
  });
  afterAll(async () => {
    await mcp.close();
    await whole.close();
    await sandbox.close();
  });

  it("tasks_query answers concise by default: every task with its id, identifier, title, status, priority, assignee and due date", async () => {
    const full = (await whole.call("tasks_query", { view: "list" })).structuredContent as { items: Row[] };
    const result = await mcp.call("tasks_query", { view: "list" });
    const concise = result.structuredContent as { items: Row[]; has_more: boolean; next_cursor: string };
    expect(concise.items).toEqual(full.items.map((task) => pick(task, TASK_FIELDS)));
    expect(concise.items).toHaveLength(50);
    expect(concise).toMatchObject({ has_more: true, next_cursor: expect.any(String) });
    expect(textOf(result)).toBe(JSON.stringify(concise));
  });

  it("response_format full answers the upstream's body as it came", async () => {
    const full = await mcp.call("tasks_query", { view: "list", response_format: "full" });
    const reference = await whole.call("tasks_query", { view: "list" });
    expect(textOf(full)).toBe(textOf(reference));
    expect(full.structuredContent).toEqual(JSON.parse(textOf(reference)));
    expect(sandbox.requests.at(-1)?.body).toEqual({ view: "list" }); // response_format stays here
  });

  it("geo_ listings answer concise rows as one table: the columns once, a row of values each", async () => {
    const args = { metrics: ["query_count"], pagination: { limit: 5 } };
    const full = (await whole.call("geo_tags", args)).structuredContent as { data: Row[]; info: Row };
    const concise = (await mcp.call("geo_tags", args)).structuredContent as { data: Table; info: Row };
    const columns = ["id", "name", "category", "slug", "query_count"];
    const query = full.info.query as Row;
    expect(concise).toEqual({
      range: {
        start_date: query.start_date,
        end_date: query.end_date,
        source: "info.query (as the API applied it)",
      },
      data: { columns, rows: full.data.map((tag) => columns.map((column) => tag[column])) },
      info: full.info,
    });
  });

  it("a report over the budget drops whole rows from the end, and next_call fetches exactly the next ones", async () => {
    const all = (
      (await whole.call("geo_reports_sentiments", SENTIMENTS)).structuredContent as { data: Row[] }
    ).data;
    const result = await mcp.call("geo_reports_sentiments", SENTIMENTS);
    const { data, truncated } = result.structuredContent as { data: Table; truncated: Truncated };
    expect(estimateTokens(textOf(result))).toBeLessThanOrEqual(8000);
    expect(truncated).toMatchObject({ shown: data.rows.length, left_out: all.length - data.rows.length });
    expect(truncated.budget_tokens).toBe(8000);
    const values = (rows: Row[]) => rows.map((row) => data.columns.map((column) => row[column]));
    expect(data.rows).toEqual(values(all.slice(0, truncated.shown)));
    expect(truncated.next_call).toEqual({
      ...SENTIMENTS,
      pagination: { offset: truncated.shown, limit: 100 },
    });

    const next = (await mcp.call("geo_reports_sentiments", truncated.next_call)).structuredContent as {
      data: Table;
    };
    expect(next.data.rows).toEqual(values(all.slice(truncated.shown, truncated.shown + 100)));
  });

  it("a task page over the budget withholds next_cursor; next_call is the page that ends at the cut, whose cursor goes on", async () => {
    const args = { view: "list", query: { pagination: { page_size: 100 } } };
    const all = ((await whole.call("tasks_query", args)).structuredContent as { items: Row[] }).items;
    const result = await mcp.call("tasks_query", args);
    const page = result.structuredContent as { items: Row[]; has_more: boolean; truncated: Truncated };
    expect(estimateTokens(textOf(result))).toBeLessThanOrEqual(8000);
    expect(page).not.toHaveProperty("next_cursor");
    expect(page.truncated).toMatchObject({ shown: page.items.length, left_out: 100 - page.items.length });
    expect(page.truncated.next_call).toEqual({
      view: "list",
      query: { pagination: { page_size: page.items.length } },
    });

    const smaller = (await mcp.call("tasks_query", page.truncated.next_call)).structuredContent as {
      items: Row[];
      next_cursor: string;
    };
    expect(smaller.items.map((task) => task.id)).toEqual(page.items.map((task) => task.id));
    const after = await mcp.call("tasks_query", {
      view: "list",
      query: { pagination: { cursor: smaller.next_cursor, page_size: 1 } },
    });
    expect((after.structuredContent as { items: Row[] }).items[0]?.id).toBe(all[page.items.length]?.id);
  });

  it("a full answer over its 20,000-token budget is cut the same way", async () => {
    const args = { view: "list", query: { pagination: { page_size: 100 } }, response_format: "full" };
    const result = await mcp.call("tasks_query", args);
    const page = result.structuredContent as { items: Row[]; truncated: Truncated };
    expect(estimateTokens(textOf(result))).toBeLessThanOrEqual(20_000);
    expect(page.truncated).toMatchObject({ budget_tokens: 20_000, left_out: 100 - page.items.length });
    expect(Object.keys(page.items[0] ?? {})).toContain("description");
  });

  it("an unknown response_format is refused with the forms to choose from, and nothing is sent", async () => {
    const sent = sandbox.requests.length;
    const result = await mcp.call("geo_topics", { response_format: "short" });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('- response_format: Invalid option: expected one of "concise"|"full"');
    expect(sandbox.requests.length).toBe(sent);
  });
});

describe("answers from a recording upstream", () => {
  let upstream: Recorder;
  let mcp: InMemoryHarness;
  let small: InMemoryHarness;
  let answer: string;
  const PROJECT = "11111111-1111-4111-8111-111111111111";
  const TASK = "55555555-5555-4555-8555-555555555555";

  beforeAll(async () => {
    setLogLevel("error");
    upstream = await startRecorder(() => ({ body: answer }));
    const settings = {
      workspaceBaseUrl: upstream.url,
      analyticsBaseUrl: upstream.url,
      workspaceApiKey: "answers-key-0123456789",
      workspaceProjectId: PROJECT,
      analyticsProjectId: PROJECT,
    };
    mcp = await startInMemory({ ...settings, responseFormat: undefined });
    small = await startInMemory({ ...settings, responseFormat: undefined, maxResultTokens: 500 });
  });
  afterAll(async () => {
    await mcp.close();
    await small.close();
    await upstream.close();
  });

  it("full keeps the upstream's own JSON text, spacing and number forms included", async () => {
    answer = '{"items": [{"id": "r1", "input_tokens": 1.0E3}] ,"next_cursor":null}';
    const result = await mcp.call("agent_runs_query", {
      scope: "task_runs",
      task_id: TASK,
      response_format: "full",
    });
    expect(textOf(result)).toBe(answer);
    expect(upstream.requests.at(-1)?.body).toEqual({ scope: "task_runs", task_id: TASK });
  });

  it("concise cuts long free text at 300 characters and says how much is missing", async () => {
    answer = JSON.stringify({ id: "c1", task_id: TASK, body: "x".repeat(1000), attachments: [] });
    const result = await mcp.call("tasks_comments", { task_id: TASK, body: "hello" });
    expect((result.structuredContent as Row).body).toBe(
      `${"x".repeat(300)}… [700 more characters: response_format full]`,
    );
  });

  it("concise never cuts an emoji in two: the cut moves before a pair that straddles it", async () => {
    answer = JSON.stringify({
      id: "c1",
      task_id: TASK,
      body: `${"x".repeat(299)}😀${"y".repeat(99)}`,
      attachments: [],
    });
    const result = await mcp.call("tasks_comments", { task_id: TASK, body: "hello" });
    expect((result.structuredContent as Row).body).toBe(
      `${"x".repeat(299)}… [101 more characters: response_format full]`,
    );
  });

  it("a list without paging over the budget says so, and what would bring more", async () => {
    answer = JSON.stringify({
      projects: Array.from({ length: 60 }, (_, i) => ({ id: `p${i}`, name: `Project ${i}` })),
    });
    const result = await small.call("whoami");
    const body = result.structuredContent as { projects: Row[]; truncated: Truncated };
    expect(estimateTokens(textOf(result))).toBeLessThanOrEqual(500);
    expect(body.truncated).toMatchObject({
      shown: body.projects.length,
      left_out: 60 - body.projects.length,
    });
    expect(body.truncated.next_call).toBeUndefined();
    expect(body.truncated.note).toContain("no paging");
  });

  it("an answer too large even without its rows is an error that says what to do, never a silent cut", async () => {
    answer = JSON.stringify({ identity: { bio: "word ".repeat(5000) }, projects: [] });
    const result = await small.call("whoami");
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      "whoami: the answer is larger than the 500-token budget even without its rows, so nothing is shown. Narrow the arguments; the server's operator can raise MCP_MAX_RESULT_TOKENS.",
    );
  });
});
