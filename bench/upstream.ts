// The bench upstream: a plain node:http server on loopback with fixed answers, so every path measured
// forwards the same bytes and the upstream itself costs as little as it can.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export const PROJECT_ID = "5b0c7a52-3c1e-4f6a-9d2b-7e8f9a0b1c2d";
export const API_KEY = "bench-key-0123456789";
export const TASKS_PATH = "/api/v1/business/tasks/query";
export const WHOAMI_PATH = "/api/v1/business/whoami";

function hex(seed: number, length: number): string {
  let text = "";
  for (let i = 0; text.length < length; i++) text += ((seed * 2654435761 + i * 40503) >>> 0).toString(16);
  return text.slice(0, length);
}

function uuid(seed: number): string {
  const h = hex(seed, 32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** A task of the spec's shape, a few null fields left out: 10 of them make the ~5.6 KB page of the issue. */
function task(index: number) {
  const day = String(10 + index).padStart(2, "0");
  return {
    id: uuid(index + 1),
    project_id: PROJECT_ID,
    identifier: `BEN-${100 + index}`,
    title: `Check citations ${index + 1}`,
    description: "",
    status: "backlog",
    priority: index % 2 === 0 ? "urgent" : "medium",
    creator_type: "member",
    creator_id: uuid(100 + index),
    assignee_type: null,
    assignee_id: null,
    parent_task_id: null,
    due_date: null,
    sort_order: index * 1000,
    started_at: null,
    completed_at: null,
    comment_count: 0,
    last_comment_at: null,
    created_at: `2025-05-${day}T08:00:00Z`,
    subtask_count: { total: 2, completed: index % 3 },
    label_ids: [],
  };
}

/** The fixed answers, serialised once: a page of 10 tasks and the small whoami identity. */
export const TASKS_BODY = JSON.stringify({
  items: Array.from({ length: 10 }, (_, index) => task(index)),
  has_more: true,
  next_cursor: "eyJvZmZzZXQiOjEwfQ",
});
export const WHOAMI_BODY = JSON.stringify({
  id: uuid(900),
  email: "bench@example.com",
  teams: [{ id: uuid(901), name: "Growth" }],
  projects: [{ id: PROJECT_ID, name: "Bench project" }],
});

export interface BenchUpstream {
  url: string;
  requests(): number;
  close(): Promise<void>;
}

export async function startBenchUpstream(): Promise<BenchUpstream> {
  let count = 0;
  const server = createServer((req, res) => {
    count++;
    // The body is drained, not parsed: the upstream's own work stays out of the comparison.
    req.resume();
    req.once("end", () => {
      const body = req.url === TASKS_PATH ? TASKS_BODY : req.url === WHOAMI_PATH ? WHOAMI_BODY : undefined;
      if (body === undefined) {
        res.writeHead(404, { "content-type": "application/json" });
        res.end('{"detail":"Not Found"}');
        return;
      }
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
      res.end(body);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
