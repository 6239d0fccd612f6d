// Prompt arguments: prompts/get refuses what it cannot use with -32602 and what to give, the project
// lookup failing, and the period argument's dates.

import { describe, expect, it } from "vitest";
import { PROMPTS } from "../../src/prompts/definitions.js";
import { resolvePeriod } from "../../src/prompts/period.js";
import type { Sandbox } from "../../src/sandbox/index.js";
import { type InMemoryHarness, startOnRecorder } from "../helpers.js";
import { logLines } from "../log-capture.js";
import { promptText, usePromptServer } from "./prompt-helpers.js";

let sandbox: Sandbox;
let mcp: InMemoryHarness;
usePromptServer((server) => ({ sandbox, mcp } = server));

const sent = () => sandbox.requests.map(({ method, path, body }) => ({ method, path, body }));

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
      message: `Unknown prompt: "weekly_digest" does not exist. Available: ${PROMPTS.map((prompt) => prompt.name).join(", ")}.`,
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
      expect(text.split("\n")[0]).toBe('Triage of the workspace project "web".');
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
