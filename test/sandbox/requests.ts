// The sandbox as the tests of this folder reach it: over real sockets, with the keys and headers the
// APIs take. Each test file has its own sandbox (useFixedSandbox), which these helpers then reach.
import { afterAll, beforeAll, expect } from "vitest";
import { SANDBOX_API_KEY, type Sandbox, startSandbox } from "../../src/sandbox/index.js";

// biome-ignore lint/suspicious/noExplicitAny: response bodies are arbitrary JSON, pinned down by assertions
export type J = any;

/** The clock the sandbox runs on, so relative dates are the same in every run. */
export const NOW = new Date("2026-02-01T12:00:00.000Z");
let sandbox: Sandbox;

/** A test file's sandbox: recording, at NOW, started before its tests (handed to `take`), closed after. */
export function useFixedSandbox(take: (sandbox: Sandbox) => void): void {
  beforeAll(async () => {
    sandbox = await startSandbox({ record: true, now: () => NOW });
    take(sandbox);
  });
  afterAll(() => sandbox.close());
}

export interface Reply {
  status: number;
  body: J;
  headers: Headers;
}

export async function request(
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
) {
  const res = await fetch(sandbox.url + path, init);
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // non-JSON (file downloads) stays text
  }
  return { status: res.status, body, headers: res.headers } as Reply;
}

/** Workspace API call with the main key and the default project unless overridden. */
/** Workspace API call with the main key and the default project unless overridden. */
export function ws(
  path: string,
  body?: unknown,
  headers: Record<string, string | undefined> = {},
): Promise<Reply> {
  const merged: Record<string, string | undefined> = {
    "x-api-key": SANDBOX_API_KEY,
    "x-project-id": sandbox.workspaceProjectId,
    "content-type": "application/json",
    ...headers,
  };
  const clean = Object.fromEntries(Object.entries(merged).filter(([, v]) => v !== undefined)) as Record<
    string,
    string
  >;
  return request(`/api/v1/business${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: clean,
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
}

export function geo(path: string, body: unknown, key = SANDBOX_API_KEY): Promise<Reply> {
  return request(path.startsWith("/v2") ? path : `/v2/geo/business${path}`, {
    method: "POST",
    headers: { "x-api-key": key, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

export const listing = (path: string, extra: Record<string, unknown> = {}) =>
  geo(path, { project_id: sandbox.analyticsProjectId, ...extra });

export const TASK_FIELDS = [
  "id",
  "project_id",
  "identifier",
  "title",
  "description",
  "status",
  "priority",
  "creator_type",
  "creator_id",
  "assignee_type",
  "assignee_id",
  "parent_task_id",
  "page_id",
  "schedule_id",
  "due_date",
  "sort_order",
  "started_at",
  "completed_at",
  "comment_count",
  "last_comment_at",
  "created_at",
  "updated_at",
  "subtask_count",
  "label_ids",
  "relation_ids",
];
export const RUN_FIELDS = [
  "id",
  "task_id",
  "agent_id",
  "status",
  "trigger",
  "started_at",
  "ended_at",
  "error_message",
  "failure_reason",
  "log_pointer",
  "last_comment_id",
  "cancelled_by_user_id",
  "input_tokens",
  "output_tokens",
  "created_at",
  "updated_at",
];

/** Walks every page of a task query and returns all items. */
/** Walks every page of a task query and returns all items. */
export async function walkTasks(query: Record<string, unknown>, pageSize: number): Promise<J[]> {
  const items: J[] = [];
  let cursor: string | undefined;
  for (let guard = 0; guard < 100; guard++) {
    const pagination = cursor ? { page_size: pageSize, cursor } : { page_size: pageSize };
    const res = await ws("/tasks/query", { view: "list", query: { ...query, pagination } });
    expect(res.status).toBe(200);
    items.push(...res.body.items);
    expect(res.body.has_more).toBe(res.body.next_cursor !== null);
    if (!res.body.has_more) return items;
    cursor = res.body.next_cursor;
  }
  throw new Error("pagination did not end");
}
