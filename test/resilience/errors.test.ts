// What the assistant sees when things go wrong upstream or in the configuration: an isError result
// that names the tool, the status and the next step, and never the API key.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  type CannedResponse,
  freePort,
  type RecordedHarness,
  type Recorder,
  startInMemory,
  startOnRecorder,
  startRecorder,
  textOf,
} from "../helpers.js";
import { logLines } from "../log-capture.js";
import { type FakeRetryClock, skipRetryWaits } from "../retry-clock.js";

const KEY = "secret-key-must-never-leak";
const PROJECT = "11111111-1111-4111-8111-111111111111";
const TASK = "55555555-5555-4555-8555-555555555555";

// The retry waits are counted, not slept through.
let clock: FakeRetryClock;
beforeAll(() => {
  clock = skipRetryWaits();
});
afterAll(() => clock.restore());

describe("upstream failures become isError results", () => {
  let upstream: Recorder;
  let mcp: RecordedHarness;
  let answer: CannedResponse;

  beforeAll(async () => {
    mcp = await startOnRecorder(
      { workspaceApiKey: KEY, workspaceProjectId: PROJECT, analyticsProjectId: PROJECT },
      () => answer,
    );
    upstream = mcp.upstream;
  });
  afterAll(async () => {
    await mcp.close();
  });
  afterEach(() => {
    upstream.requests.length = 0;
  });

  // [label, tool, upstream answer, result text, requests the upstream sees]
  const cases: [string, string, CannedResponse, string, number?][] = [
    [
      "401 on a workspace tool",
      "tasks_query",
      { status: 401, body: { detail: "Missing or invalid API key" } },
      "tasks_query: 401 Unauthorized: the API key is missing or invalid. Set or fix WORKSPACE_API_KEY in this MCP server's environment.",
    ],
    [
      "401 on an analytics tool",
      "geo_prompts",
      { status: 401, body: { detail: "Missing or invalid API key" } },
      "geo_prompts: 401 Unauthorized: the API key is missing or invalid. Set or fix WORKSPACE_API_KEY (or ANALYTICS_API_KEY, which overrides it for geo_ tools) in this MCP server's environment.",
    ],
    [
      "403 on a workspace tool",
      "tasks_query",
      { status: 403, body: { detail: "No access to project" } },
      "tasks_query: 403 Forbidden: the key has no access to that project or workspace. Check project_id with whoami and pass one it lists. The API said: No access to project.",
    ],
    [
      "403 on an analytics tool",
      "geo_tags",
      { status: 403, body: { detail: "No access to project" } },
      "geo_tags: 403 Forbidden: the key has no access to that project. Check project_id with geo_projects and pass one it lists. The API said: No access to project.",
    ],
    [
      "422 with FastAPI details",
      "tasks_query",
      {
        status: 422,
        body: {
          detail: [
            { type: "missing", loc: ["body", "view"], msg: "Field required", input: {} },
            {
              type: "less_than_equal",
              loc: ["body", "query", "pagination", "page_size"],
              msg: "Input should be less than or equal to 100",
              input: 101,
              ctx: { le: 100 },
            },
          ],
        },
      },
      "tasks_query: 422 Unprocessable: the API rejected the arguments: body.view: Field required; body.query.pagination.page_size: Input should be less than or equal to 100. Fix them and call again.",
    ],
    [
      "429 with a Retry-After beyond the retry budget",
      "geo_topics",
      { status: 429, headers: { "retry-after": "60" }, body: { detail: "Too many requests" } },
      "geo_topics: 429 Too Many Requests: rate limited. Retry after 60 s.",
    ],
    [
      "429 without Retry-After, retried with backoff",
      "geo_topics",
      { status: 429, body: {} },
      "geo_topics: 429 Too Many Requests: rate limited after 3 attempts. Wait a little before calling again.",
      3,
    ],
    [
      "500 with a JSON detail",
      "agent_runs_query",
      { status: 500, body: { detail: "database unavailable" } },
      "agent_runs_query: the workspace API failed with 500. The API said: database unavailable. This is on the service's side: retry in a little while.",
    ],
    [
      "502 with an HTML page",
      "geo_keywords",
      {
        status: 502,
        headers: { "content-type": "text/html" },
        body: "<html><body><h1>502 Bad Gateway</h1><p>nginx</p></body></html>",
      },
      "geo_keywords: the analytics API failed with 502 after 3 attempts. The API said: 502 Bad Gateway nginx. This is on the service's side: retry in a little while.",
      3,
    ],
    [
      "404 for an unknown id",
      "tasks_comments",
      { status: 404, body: { detail: "Task not found" } },
      "tasks_comments: 404 Not Found: a referenced id does not exist in this project. The API said: Task not found. Check the ids against an earlier result.",
    ],
    [
      "404 with an HTML page (a wrong base URL, a proxy): the base URL setting",
      "tasks_comments",
      {
        status: 404,
        headers: { "content-type": "text/html" },
        body: "<html><body><h1>404 Not Found</h1><hr>nginx</body></html>",
      },
      "tasks_comments: 404 Not Found for the path itself, not for an id: the workspace API's base URL likely points at another server or path, or a proxy answered. It said: 404 Not Found nginx. Check WORKSPACE_BASE_URL, then retry.",
    ],
    [
      "404 with the bare Not Found of an unknown path",
      "geo_prompts",
      { status: 404, body: { detail: "Not Found" } },
      "geo_prompts: 404 Not Found for the path itself, not for an id: the analytics API's base URL likely points at another server or path, or a proxy answered. It said: Not Found. Check ANALYTICS_BASE_URL, then retry.",
    ],
    [
      "404 with an empty body",
      "whoami",
      { status: 404, body: "" },
      "whoami: 404 Not Found for the path itself, not for an id: the workspace API's base URL likely points at another server or path, or a proxy answered. Check WORKSPACE_BASE_URL, then retry.",
    ],
    [
      "a 2xx body that is not JSON",
      "whoami",
      { status: 200, headers: { "content-type": "text/html" }, body: "<html>maintenance</html>" },
      'whoami: the workspace API answered 200 with a body that is not JSON (content type text/html): "maintenance". Retry later; the service may be misconfigured.',
    ],
  ];

  it.each(cases)("%s", async (_label, tool, canned, expected, requests = 1) => {
    answer = canned;
    const args =
      tool === "tasks_comments"
        ? { task_id: TASK }
        : tool === "agent_runs_query"
          ? { scope: "task_runs", task_id: TASK }
          : {};
    const result = await mcp.call(tool, args);
    expect(result).toEqual({ isError: true, content: [{ type: "text", text: expected }] });
    expect(upstream.requests).toHaveLength(requests);
  });

  it("redacts the key even when the upstream echoes it back", async () => {
    answer = {
      status: 422,
      body: { detail: [{ loc: ["header", "x-api-key"], msg: `key ${KEY} is revoked`, type: "value_error" }] },
    };
    const result = await mcp.call("whoami");
    expect(textOf(result)).toBe(
      "whoami: 422 Unprocessable: the API rejected the arguments: header.x-api-key: key [redacted] is revoked. Fix them and call again.",
    );
  });
});

describe("network failures and missing configuration", () => {
  it("a setting given by flag is named by its flag", async () => {
    const upstream = await startRecorder(() => ({ status: 404, body: "Not Found" }));
    const mcp = await startInMemory({
      workspaceBaseUrl: upstream.url,
      analyticsBaseUrl: upstream.url,
      workspaceApiKey: KEY,
      givenByFlag: ["upstream.workspaceBaseUrl"],
    });
    try {
      expect(textOf(await mcp.call("whoami"))).toBe(
        "whoami: 404 Not Found for the path itself, not for an id: the workspace API's base URL likely points at another server or path, or a proxy answered. It said: Not Found. Check --workspace-base-url, then retry.",
      );
      expect(textOf(await mcp.call("geo_projects"))).toBe(
        "geo_projects: 404 Not Found for the path itself, not for an id: the analytics API's base URL likely points at another server or path, or a proxy answered. It said: Not Found. Check ANALYTICS_BASE_URL, then retry.",
      );
    } finally {
      await mcp.close();
      await upstream.close();
    }
  });

  it("a refused connection, retried, names the base URL variable", async () => {
    const port = await freePort();
    const mcp = await startInMemory({
      workspaceBaseUrl: `http://127.0.0.1:${port}`,
      analyticsBaseUrl: `http://127.0.0.1:${port}`,
      workspaceApiKey: KEY,
      workspaceProjectId: PROJECT,
      analyticsProjectId: PROJECT,
    });
    try {
      expect(textOf(await mcp.call("whoami"))).toBe(
        `whoami: could not reach the workspace API at http://127.0.0.1:${port} (ECONNREFUSED) after 3 attempts. Check WORKSPACE_BASE_URL and the network, then retry.`,
      );
      expect(textOf(await mcp.call("geo_projects"))).toBe(
        `geo_projects: could not reach the analytics API at http://127.0.0.1:${port} (ECONNREFUSED) after 3 attempts. Check ANALYTICS_BASE_URL and the network, then retry.`,
      );
    } finally {
      await mcp.close();
    }
  });

  it("without configuration the tools are listed and each call names the variable to set", async () => {
    const mcp = await startInMemory({});
    try {
      const { tools } = await mcp.client.listTools();
      expect(tools).toHaveLength(14);
      const whoami = await mcp.call("whoami");
      expect(whoami.isError).toBe(true);
      expect(textOf(whoami)).toBe(
        "whoami: WORKSPACE_API_KEY is not set: add your API key (API dashboard, API access on) to this MCP server's environment and restart it; over HTTP, a client may send it as the X-API-KEY header instead.",
      );
      expect(textOf(await mcp.call("geo_projects"))).toBe(
        "geo_projects: WORKSPACE_API_KEY is not set (ANALYTICS_API_KEY may override it for the geo_ tools): add your API key to this MCP server's environment and restart it; over HTTP, a client may send it as the X-API-KEY header instead.",
      );
    } finally {
      await mcp.close();
    }
  });

  it("with a key but no base URL, the call names the URL variable", async () => {
    const mcp = await startInMemory({ workspaceApiKey: KEY });
    try {
      expect(textOf(await mcp.call("whoami"))).toBe(
        "whoami: WORKSPACE_BASE_URL is not set: add the agent-workspace API's base URL to this MCP server's environment and restart it.",
      );
      expect(textOf(await mcp.call("geo_projects"))).toBe(
        "geo_projects: ANALYTICS_BASE_URL is not set: add the analytics API's base URL to this MCP server's environment and restart it.",
      );
    } finally {
      await mcp.close();
    }
  });
});

describe("default projects", () => {
  const ONLY = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa";
  const SECOND = "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb";

  it("uses the only project whoami lists, looked up once", async () => {
    const upstream = await startRecorder((request) =>
      request.path.endsWith("/whoami")
        ? { body: { projects: [{ id: ONLY, name: "Solo" }] } }
        : { body: { items: [] } },
    );
    const mcp = await startInMemory({ workspaceBaseUrl: upstream.url, workspaceApiKey: KEY });
    try {
      await mcp.call("tasks_query", { view: "list" });
      await mcp.call("tasks_query", { view: "list" });
      expect(upstream.requests.map((r) => [r.path, r.headers["x-project-id"]])).toEqual([
        ["/api/v1/business/whoami", undefined],
        ["/api/v1/business/tasks/query", ONLY],
        ["/api/v1/business/tasks/query", ONLY],
      ]);
    } finally {
      await mcp.close();
      await upstream.close();
    }
  });

  it("a caller cancelling does not fail the others waiting on the same whoami lookup", async () => {
    let releaseWhoami!: () => void;
    const whoamiHeld = new Promise<void>((resolve) => {
      releaseWhoami = resolve;
    });
    const upstream = await startRecorder(async (request) => {
      if (!request.path.endsWith("/whoami")) return { body: { items: [] } };
      await whoamiHeld;
      return { body: { projects: [{ id: ONLY, name: "Solo" }] } };
    });
    const mcp = await startInMemory({ workspaceBaseUrl: upstream.url, workspaceApiKey: KEY });
    try {
      const cancelled = new AbortController();
      const first = mcp.call("tasks_query", { view: "list" }, { signal: cancelled.signal });
      const second = mcp.call("tasks_query", { view: "list" });
      for (let wait = 0; wait < 200 && upstream.requests.length === 0; wait++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      cancelled.abort();
      await expect(first).rejects.toThrow();
      // Hold whoami until the server has acted on the cancellation.
      const logged = () => logLines().some((line) => line.includes('"tool call cancelled"'));
      for (let wait = 0; wait < 200 && !logged(); wait++)
        await new Promise((resolve) => setTimeout(resolve, 10));
      expect(logged()).toBe(true);
      releaseWhoami();
      expect(await second).toEqual({
        content: [{ type: "text", text: '{"items":[]}' }],
        structuredContent: { items: [] },
      });
      expect(upstream.requests.map((r) => [r.path, r.headers["x-project-id"]])).toEqual([
        ["/api/v1/business/whoami", undefined],
        ["/api/v1/business/tasks/query", ONLY],
      ]);
    } finally {
      await mcp.close();
      await upstream.close();
    }
  });

  it("with several projects, tells the assistant to call whoami and pass project_id", async () => {
    const upstream = await startRecorder(() => ({
      body: {
        projects: [
          { id: ONLY, name: "Solo" },
          { id: SECOND, name: "Duo" },
        ],
      },
    }));
    const mcp = await startInMemory({ workspaceBaseUrl: upstream.url, workspaceApiKey: KEY });
    try {
      const result = await mcp.call("tasks_query", { view: "list" });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe(
        `tasks_query: No project chosen and whoami lists 2: Solo (${ONLY}), Duo (${SECOND}). Pass one's id as project_id (call whoami for the full list), or set WORKSPACE_PROJECT_ID.`,
      );
      expect(upstream.requests.map((r) => r.path)).toEqual(["/api/v1/business/whoami"]);
    } finally {
      await mcp.close();
      await upstream.close();
    }
  });

  it("an analytics call without project_id or ANALYTICS_PROJECT_ID points at geo_projects", async () => {
    const upstream = await startRecorder();
    const mcp = await startInMemory({ analyticsBaseUrl: upstream.url, workspaceApiKey: KEY });
    try {
      expect(textOf(await mcp.call("geo_prompts"))).toBe(
        "geo_prompts: project_id is required: call geo_projects to list your analytics projects and pass one's id as project_id (or set ANALYTICS_PROJECT_ID).",
      );
      expect(upstream.requests).toEqual([]);
    } finally {
      await mcp.close();
      await upstream.close();
    }
  });

  it("ANALYTICS_API_KEY overrides the workspace key for geo_ tools only", async () => {
    const upstream = await startRecorder();
    const mcp = await startInMemory({
      workspaceBaseUrl: upstream.url,
      analyticsBaseUrl: upstream.url,
      workspaceApiKey: "workspace-key",
      analyticsApiKey: "analytics-key",
      workspaceProjectId: PROJECT,
    });
    try {
      await mcp.call("whoami");
      await mcp.call("geo_projects");
      expect(upstream.requests.map((r) => r.headers["x-api-key"])).toEqual([
        "workspace-key",
        "analytics-key",
      ]);
    } finally {
      await mcp.close();
      await upstream.close();
    }
  });
});

describe("in the Claude Desktop extension (--settings-from mcpb), messages name the form's fields", () => {
  const inForm = { settingsFrom: "mcpb" as const };

  it("a missing key, base URL or default project: the field to fill in, and the sandbox for the key", async () => {
    const empty = await startInMemory(inForm);
    try {
      expect(textOf(await empty.call("whoami"))).toBe(
        'whoami: No API key: fill in "API key" in this extension\'s settings (Claude Desktop: Settings → Extensions), or turn on "Sandbox (demo data)" to try the tools on invented data.',
      );
      expect(textOf(await empty.call("geo_projects"))).toBe(
        'geo_projects: No API key: fill in "API key" in this extension\'s settings (Claude Desktop: Settings → Extensions), or turn on "Sandbox (demo data)" to try the tools on invented data.',
      );
    } finally {
      await empty.close();
    }
    const keyOnly = await startInMemory({ ...inForm, workspaceApiKey: KEY });
    try {
      expect(textOf(await keyOnly.call("whoami"))).toBe(
        'whoami: No agent-workspace API base URL: fill in "Agent-workspace API base URL" in this extension\'s settings (Claude Desktop: Settings → Extensions).',
      );
      expect(textOf(await keyOnly.call("geo_projects"))).toBe(
        'geo_projects: No analytics API base URL: fill in "Analytics API base URL" in this extension\'s settings (Claude Desktop: Settings → Extensions).',
      );
    } finally {
      await keyOnly.close();
    }
    const upstream = await startRecorder(() => ({ body: { projects: [] } }));
    const noProject = await startInMemory({
      ...inForm,
      workspaceApiKey: KEY,
      workspaceBaseUrl: upstream.url,
      analyticsBaseUrl: upstream.url,
    });
    try {
      expect(textOf(await noProject.call("tasks_query", { view: "list" }))).toBe(
        "tasks_query: No project chosen and whoami lists no project for this key: check the key's workspace (workspace_id) or set \"Default workspace project\" in this extension's settings.",
      );
      expect(textOf(await noProject.call("geo_prompts", {}))).toBe(
        "geo_prompts: project_id is required: call geo_projects to list your analytics projects and pass one's id as project_id (or set \"Default analytics project\" in this extension's settings).",
      );
    } finally {
      await noProject.close();
      await upstream.close();
    }
  });

  it("a 404 that is not the API's: the base URL's field", async () => {
    const upstream = await startRecorder(() => ({
      status: 404,
      headers: { "content-type": "text/html" },
      body: "<html><body>Not Found</body></html>",
    }));
    const mcp = await startInMemory({
      ...inForm,
      workspaceApiKey: KEY,
      workspaceProjectId: PROJECT,
      analyticsProjectId: PROJECT,
      workspaceBaseUrl: upstream.url,
      analyticsBaseUrl: upstream.url,
    });
    try {
      expect(textOf(await mcp.call("geo_prompts", {}))).toBe(
        "geo_prompts: 404 Not Found for the path itself, not for an id: the analytics API's base URL likely points at another server or path, or a proxy answered. It said: Not Found. Check \"Analytics API base URL\" in this extension's settings, then retry.",
      );
    } finally {
      await mcp.close();
      await upstream.close();
    }
  });

  it("a refused key, and an API that cannot be reached: the fields to check", async () => {
    const upstream = await startRecorder(() => ({
      status: 401,
      body: { detail: "Missing or invalid API key" },
    }));
    const port = await freePort();
    const settings = {
      ...inForm,
      workspaceApiKey: KEY,
      workspaceProjectId: PROJECT,
      analyticsProjectId: PROJECT,
    };
    const refused = await startInMemory({
      ...settings,
      workspaceBaseUrl: upstream.url,
      analyticsBaseUrl: upstream.url,
    });
    const unreached = await startInMemory({
      ...settings,
      workspaceBaseUrl: `http://127.0.0.1:${port}`,
      analyticsBaseUrl: `http://127.0.0.1:${port}`,
    });
    try {
      expect(textOf(await refused.call("tasks_query", { view: "list" }))).toBe(
        'tasks_query: 401 Unauthorized: the API key is missing or invalid. Set or fix "API key" in this extension\'s settings.',
      );
      expect(textOf(await refused.call("geo_prompts", {}))).toBe(
        'geo_prompts: 401 Unauthorized: the API key is missing or invalid. Set or fix "API key" (or "Analytics API key", which overrides it for geo_ tools) in this extension\'s settings.',
      );
      expect(textOf(await unreached.call("whoami"))).toBe(
        `whoami: could not reach the workspace API at http://127.0.0.1:${port} (ECONNREFUSED) after 3 attempts. Check "Agent-workspace API base URL" in this extension's settings and the network, then retry.`,
      );
    } finally {
      await refused.close();
      await unreached.close();
      await upstream.close();
    }
  });
});
