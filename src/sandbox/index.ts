// In-process fake of the agent-workspace and visibility-analytics REST APIs:
// a plain node:http server with seeded, deterministic data. It backs the
// `--demo` mode and the test suite. Both APIs share one origin; their paths
// (/api/v1/... and /v2/geo/...) do not collide.

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { listProjects } from "./analytics.js";
import {
  listCitations,
  listKeywords,
  listModels,
  listPrompts,
  listTags,
  listTopics,
  listWebsites,
} from "./analytics-listings.js";
import type { AnalyticsIds } from "./analytics-types.js";
import { type Account, type Body, type Ctx, RawReply, type SandboxState } from "./context.js";
import { Rng, SANDBOX_TODAY } from "./random.js";
import { queryRuns } from "./runs.js";
import { sentimentReport } from "./sentiments.js";
import { queryTasks } from "./tasks.js";
import type { WorkspaceIds } from "./types.js";
import { HttpError } from "./validate.js";
import { createComment, downloadUrl, serveFile, whoami } from "./workspace.js";
import { SANDBOX_API_KEY, SANDBOX_SINGLE_PROJECT_API_KEY, SandboxWorld } from "./world.js";

export { SANDBOX_API_KEY, SANDBOX_SINGLE_PROJECT_API_KEY };

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** Parsed JSON; undefined when there was no body; the raw text when it was not JSON. */
  body: unknown;
}

export interface SandboxOptions {
  host?: string;
  port?: number;
  record?: boolean;
  now?: () => Date;
}

/** Well-known ids of the seeded data, for tests and demos. */
export type SandboxIds = Omit<WorkspaceIds, "mainUserId" | "singleUserId"> &
  AnalyticsIds & {
    /** The user behind SANDBOX_API_KEY. */
    userId: string;
  };

export interface Sandbox {
  url: string;
  workspaceBaseUrl: string;
  analyticsBaseUrl: string;
  apiKey: string;
  workspaceProjectId: string;
  analyticsProjectId: string;
  ids: SandboxIds;
  /** The seeded world's today (YYYY-MM-DD): its data runs up to this date, whatever the clock says. */
  today: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

type Handler = (ctx: Ctx) => unknown;

/** The endpoints of both APIs the sandbox answers, by path and method (held to ENDPOINTS by a test). */
export const ROUTES: Record<string, Partial<Record<string, Handler>>> = {
  "/api/v1/business/whoami": { GET: whoami },
  "/api/v1/business/tasks/query": { POST: queryTasks },
  "/api/v1/business/tasks/comments": { POST: createComment },
  "/api/v1/business/agent-runs/query": { POST: queryRuns },
  "/api/v1/business/attachments/download-url": { POST: downloadUrl },
  "/v2/geo/business/projects": { POST: listProjects },
  "/v2/geo/business/prompts": { POST: listPrompts },
  "/v2/geo/business/tags": { POST: listTags },
  "/v2/geo/business/topics": { POST: listTopics },
  "/v2/geo/business/models": { POST: listModels },
  "/v2/geo/business/websites": { POST: listWebsites },
  "/v2/geo/business/citations": { POST: listCitations },
  "/v2/geo/business/keywords": { POST: listKeywords },
  "/v2/geo/reports/sentiments": { POST: sentimentReport },
};

const MAX_BODY_BYTES = 1024 * 1024;

function send(
  res: ServerResponse,
  status: number,
  payload: unknown,
  extra: Record<string, string> = {},
): void {
  const isRaw = payload instanceof RawReply;
  const bytes = isRaw ? payload.payload : Buffer.from(JSON.stringify(payload));
  res.writeHead(status, {
    "content-type": isRaw ? payload.contentType : "application/json",
    "content-length": String(bytes.length),
    ...extra,
  });
  res.end(bytes);
}

/** Reads the whole body; past the cap it keeps draining (so the 413 reaches the client) but stores nothing. */
function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on("end", () => resolve(size > MAX_BODY_BYTES ? null : Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

function decodeBody(raw: string): Body {
  if (raw.trim() === "") return { kind: "none" };
  try {
    return { kind: "json", value: JSON.parse(raw) };
  } catch (error) {
    return { kind: "invalid", raw, error: error instanceof Error ? error.message : "invalid JSON" };
  }
}

function flatHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

async function handle(
  state: SandboxState,
  req: IncomingMessage,
  res: ServerResponse,
  log: RecordedRequest[] | null,
) {
  const method = req.method ?? "GET";
  const target = new URL(req.url ?? "/", "http://sandbox.invalid");
  const headers = flatHeaders(req);
  const rawBody = await readBody(req);
  const body = rawBody === null ? null : decodeBody(rawBody.toString("utf8"));
  if (log) {
    const recorded =
      body === null
        ? "<too large>"
        : body.kind === "json"
          ? body.value
          : body.kind === "invalid"
            ? body.raw
            : undefined;
    log.push({ method, path: req.url ?? "/", headers, body: recorded });
  }
  if (body === null) return send(res, 413, { detail: "Request body too large" });

  const path = target.pathname;
  if (path.startsWith("/files/")) {
    if (method !== "GET") return send(res, 405, { detail: "Method Not Allowed" }, { allow: "GET" });
    return send(res, 200, serveFile({ state, path, search: target.searchParams }));
  }
  const route = ROUTES[path];
  if (!route) return send(res, 404, { detail: "Not Found" });
  const handler = route[method];
  if (!handler)
    return send(res, 405, { detail: "Method Not Allowed" }, { allow: Object.keys(route).join(", ") });

  const key = headers["x-api-key"];
  const account = key === undefined ? undefined : state.accounts.get(key);
  if (!account) return send(res, 401, { detail: "Missing or invalid API key" });
  return send(res, 200, handler({ state, account, headers, body, path, search: target.searchParams }));
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const world = new SandboxWorld();
  const { mainUser, singleUser, acme, hopper } = world.workspaceDirectory;
  const accounts = new Map<string, Account>([
    [SANDBOX_API_KEY, { key: SANDBOX_API_KEY, userId: mainUser.id, workspaceId: acme.id }],
    [
      SANDBOX_SINGLE_PROJECT_API_KEY,
      { key: SANDBOX_SINGLE_PROJECT_API_KEY, userId: singleUser.id, workspaceId: hopper.id },
    ],
  ]);
  // The worlds are seeded on the first request that reads them (world.ts).
  const state: SandboxState = {
    get workspace() {
      return world.workspace;
    },
    get analytics() {
      return world.analytics;
    },
    accounts,
    rng: new Rng(0xc0ffee),
    commentCounter: 0,
    links: new Map(),
    now: options.now ?? (() => new Date()),
    baseUrl: "",
  };
  const requests: RecordedRequest[] = [];
  const log = options.record ? requests : null;

  const server = createServer({ keepAlive: true }, (req, res) => {
    handle(state, req, res, log).catch((error: unknown) => {
      if (res.headersSent) return void res.destroy();
      if (error instanceof HttpError) return send(res, error.status, error.body, error.headers);
      send(res, 500, {
        detail: "Internal Server Error",
        error: error instanceof Error ? error.message : String(error),
      });
    });
  });
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  state.baseUrl = url;

  // Read on first use: the ids of tasks, runs and comments need the whole workspace world seeded.
  let ids: SandboxIds | undefined;
  const idsOf = (): SandboxIds => {
    const { mainUserId, singleUserId: _singleUserId, ...workspaceIds } = world.workspace.ids;
    const analyticsIds = world.analytics.ids;
    return {
      ...workspaceIds,
      workspaceProjects: [...workspaceIds.workspaceProjects],
      ...analyticsIds,
      analyticsProjects: [...analyticsIds.analyticsProjects],
      userId: mainUserId,
    };
  };

  return {
    url,
    workspaceBaseUrl: url,
    analyticsBaseUrl: url,
    apiKey: SANDBOX_API_KEY,
    // The first of ids.workspaceProjects and ids.analyticsProjects, known from the directories.
    workspaceProjectId: world.workspaceDirectory.plans[0]!.project.id,
    analyticsProjectId: world.analyticsDirectory.projects[0]!.id,
    get ids() {
      ids ??= idsOf();
      return ids;
    },
    today: SANDBOX_TODAY,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
