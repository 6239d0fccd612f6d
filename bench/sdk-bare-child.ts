// The comparison server: the tasks_query tool on a bare SDK v2 server, built the way the SDK v2 docs
// build one, forwarding to the bench upstream with undici the request our server sends. Nothing here
// is tuned; it is the baseline our server is measured against on each path.
//   --transport stdio     serveStdio(factory): both eras on one connection
//   --transport http      createMcpHandler(factory) (legacy: 'stateless') on node:http: both eras
//   --transport sessions  the docs' sessionful 2025 recipe: a NodeStreamableHTTPServerTransport per
//                         session in a map, routed by Mcp-Session-Id
// Same environment as our server (serverEnv): WORKSPACE_BASE_URL, WORKSPACE_API_KEY, WORKSPACE_PROJECT_ID.
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { parseArgs } from "node:util";
import {
  localhostHostValidation,
  localhostOriginValidation,
  NodeStreamableHTTPServerTransport,
  toNodeHandler,
} from "@modelcontextprotocol/node";
import { createMcpHandler, isInitializeRequest, McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { Agent, request } from "undici";
import * as z from "zod/v4";

const { values } = parseArgs({
  options: { transport: { type: "string", default: "stdio" }, port: { type: "string", default: "0" } },
});
const BASE_URL = process.env.WORKSPACE_BASE_URL ?? "";
const API_KEY = process.env.WORKSPACE_API_KEY ?? "";
const DEFAULT_PROJECT = process.env.WORKSPACE_PROJECT_ID ?? "";
const TASKS_URL = `${BASE_URL}/api/v1/business/tasks/query`;

// Created once at module scope and closed over by the factory, as the docs advise.
const upstream = new Agent();

// The input of our tasks_query, written out again: routing, view, query (filter, sort, pagination,
// include_parents), group_by.
const inputSchema = z
  .strictObject({
    project_id: z.guid().optional().describe("Project uuid; defaults to WORKSPACE_PROJECT_ID."),
    workspace_id: z.guid().optional().describe("Workspace uuid."),
    view: z
      .enum(["list", "counts"])
      .optional()
      .describe("`list`: a page of tasks. `counts`: grouped totals."),
    query: z
      .strictObject({
        filter: z.record(z.string(), z.unknown()).optional().describe("Narrows both views."),
        sort: z
          .strictObject({ sort_by: z.string().optional(), sort_order: z.string().optional() })
          .optional()
          .describe("Order of a list."),
        pagination: z
          .strictObject({
            cursor: z.string().optional().describe("next_cursor of the previous page."),
            page_size: z.int().min(1).max(100).optional().describe("Tasks per page, 1-100."),
          })
          .optional()
          .describe("Page of a list."),
        include_parents: z.boolean().optional().describe("Also return `parents`."),
      })
      .optional()
      .describe("Filter, sort and page."),
    group_by: z
      .enum(["status", "priority", "assignee_id", "creator_id", "page_id"])
      .optional()
      .describe("Grouping of view `counts`."),
  })
  .superRefine((args, ctx) => {
    if (args.view === "counts" && args.group_by === undefined) {
      ctx.addIssue({ code: "custom", path: ["group_by"], message: "is required when view is `counts`" });
    }
  });

function buildServer(): McpServer {
  const server = new McpServer({ name: "bench-bare-sdk-v2", version: "1.0.0" });
  server.registerTool(
    "tasks_query",
    { description: "List a project's tasks or count them.", inputSchema },
    async ({ project_id, workspace_id, ...body }) => {
      const headers: Record<string, string> = {
        "x-api-key": API_KEY,
        accept: "application/json",
        "content-type": "application/json",
        "x-project-id": project_id ?? DEFAULT_PROJECT,
      };
      if (workspace_id) headers["x-workspace-id"] = workspace_id;
      const answer = await request(TASKS_URL, {
        method: "POST",
        headers,
        body: JSON.stringify(body),
        dispatcher: upstream,
      });
      const text = await answer.body.text();
      if (answer.statusCode !== 200) {
        return { isError: true, content: [{ type: "text", text: `upstream ${answer.statusCode}: ${text}` }] };
      }
      return {
        content: [{ type: "text", text }],
        structuredContent: JSON.parse(text) as Record<string, unknown>,
      };
    },
  );
  return server;
}

/** The localhost Host and Origin guards in front of `handle`, on a loopback-bound node:http server. */
function listen(handle: (req: IncomingMessage, res: ServerResponse) => void): void {
  const validateHost = localhostHostValidation();
  const validateOrigin = localhostOriginValidation();
  createServer((req, res) => {
    if (!validateHost(req, res) || !validateOrigin(req, res)) return;
    handle(req, res);
  }).listen(Number(values.port), "127.0.0.1");
}

function serveHttp(): void {
  const nodeHandler = toNodeHandler(createMcpHandler(buildServer));
  listen((req, res) => void nodeHandler(req, res));
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return chunks.length === 0 ? undefined : JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

function answerError(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
}

/** The sessionful 2025 recipe, on node:http: the body parsed here where Express's json() would. */
function serveSessions(): void {
  const sessions = new Map<string, NodeStreamableHTTPServerTransport>();
  const route = async (req: IncomingMessage, res: ServerResponse) => {
    const body = req.method === "POST" ? await readJson(req) : undefined;
    const sessionId = req.headers["mcp-session-id"] as string | undefined;
    const existing = sessionId === undefined ? undefined : sessions.get(sessionId);
    if (existing) {
      await existing.handleRequest(req, res, body);
      return;
    }
    if (!sessionId && isInitializeRequest(body)) {
      const transport = new NodeStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, transport);
        },
      });
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId);
      };
      await buildServer().connect(transport);
      await transport.handleRequest(req, res, body);
      return;
    }
    if (sessionId) {
      answerError(res, 404, -32001, "Session not found");
      return;
    }
    answerError(res, 400, -32000, "Bad Request: Session ID required");
  };
  listen((req, res) => {
    route(req, res).catch(() => {
      if (!res.headersSent) answerError(res, 400, -32700, "Parse error");
    });
  });
}

// Exits normally on SIGTERM, so that a --cpu-prof run writes its profile.
process.once("SIGTERM", () => process.exit(0));

switch (values.transport) {
  case "stdio":
    serveStdio(buildServer);
    break;
  case "http":
    serveHttp();
    break;
  case "sessions":
    serveSessions();
    break;
  default:
    throw new Error(`unknown --transport ${values.transport}`);
}
