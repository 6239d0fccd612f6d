// Completion of prompt arguments from the APIs: exact upstream requests, a short per-key cache, bounds,
// failing soft, and a slow listing that does not keep a person waiting.
import { afterEach, describe, expect, it, vi } from "vitest";
import { completionWait } from "../../src/prompts/index.js";
import type { Sandbox } from "../../src/sandbox/index.js";
import { selectTools } from "../../src/tools/selection.js";
import {
  type InMemoryHarness,
  type RecordedHarness,
  sandboxSettings,
  startInMemory,
  startOnRecorder,
} from "../helpers.js";
import { logLines } from "../log-capture.js";
import { ALL, complete, promptText, usePromptServer } from "./prompt-helpers.js";

let sandbox: Sandbox;
let mcp: InMemoryHarness;
usePromptServer((server) => ({ sandbox, mcp } = server));

const sent = () => sandbox.requests.map(({ method, path, body }) => ({ method, path, body }));

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
    expect(text.split("\n")[0]).toBe('Triage of the workspace project "Leak [redacted]".');
  });

  it("fails soft without a key too, sending nothing", async () => {
    harness = await startOnRecorder({});
    expect(await complete(harness, "visibility_report", "project", "")).toEqual({
      completion: { values: [], total: 0, hasMore: false },
    });
    expect(harness.upstream.requests).toEqual([]);
  });
});
