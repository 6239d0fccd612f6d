// The comparison server: the tasks_query tool on a bare SDK v2 server, built the way the SDK v2 docs
// build one, forwarding to the bench upstream with undici the request our server sends. Nothing here
// is tuned; it is the baseline our server is measured against on each path.
//   --transport stdio     serveStdio(factory): both eras on one connection
//   --transport http      createMcpHandler(factory) (legacy: 'stateless') on node:http: both eras
//   --transport sessions  the docs' sessionful 2025 recipe: a NodeStreamableHTTPServerTransport per
//                         session in a map, routed by Mcp-Session-Id
// Same environment as our server (serverEnv): WORKSPACE_BASE_URL, WORKSPACE_API_KEY, WORKSPACE_PROJECT_ID.
// Imported, serveBareHttp starts either HTTP form in the importing process (test/bench/driver.test.ts).
import { randomUUID } from "node:crypto";
import {
  createServer,
  type Server as HttpServer,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import { fileURLToPath } from "node:url";
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

/** The variables of our server's environment the bare one reads, once, at its start. */
export type BareEnv = Partial<
  Record<"WORKSPACE_BASE_URL" | "WORKSPACE_API_KEY" | "WORKSPACE_PROJECT_ID", string>
>;

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

/** The server factory: a new server per call (per connection, session or request), forwarding as `env` says. */
function serverFactory(env: BareEnv): () => McpServer {
  const tasksUrl = `${env.WORKSPACE_BASE_URL ?? ""}/api/v1/business/tasks/query`;
  const apiKey = env.WORKSPACE_API_KEY ?? "";
  const defaultProject = env.WORKSPACE_PROJECT_ID ?? "";
  return () => buildServer(tasksUrl, apiKey, defaultProject);
}

function buildServer(tasksUrl: string, apiKey: string, defaultProject: string): McpServer {
  const server = new McpServer({ name: "bench-bare-sdk-v2", version: "1.0.0" });
  server.registerTool(
    "tasks_query",
    { description: "List a project's tasks or count them.", inputSchema },
    async ({ project_id, workspace_id, ...body }) => {
      const headers: Record<string, string> = {
        "x-api-key": apiKey,
        accept: "application/json",
        "content-type": "application/json",
        "x-project-id": project_id ?? defaultProject,
      };
      if (workspace_id) headers["x-workspace-id"] = workspace_id;
      const answer = await request(tasksUrl, {
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

/** The localhost Host and Origin guards in front of `handle`, on a node:http server to bind to loopback. */
function guarded(handle: (req: IncomingMessage, res: ServerResponse) => void): HttpServer {
  const validateHost = localhostHostValidation();
  const validateOrigin = localhostOriginValidation();
  return createServer((req, res) => {
    if (!validateHost(req, res) || !validateOrigin(req, res)) return;
    handle(req, res);
  });
}

function serveHttp(buildServer: () => McpServer): HttpServer {
  const nodeHandler = toNodeHandler(createMcpHandler(buildServer));
  return guarded((req, res) => void nodeHandler(req, res));
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
function serveSessions(buildServer: () => McpServer): HttpServer {
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
  return guarded((req, res) => {
    route(req, res).catch(() => {
      if (!res.headersSent) answerError(res, 400, -32700, "Parse error");
    });
  });
}

/** The bare server over HTTP (`http` or `sessions`), listening on 127.0.0.1:`port` (0: a free port). */
export async function serveBareHttp(mode: string, port: number, env: BareEnv): Promise<HttpServer> {
  const serve = mode === "http" ? serveHttp : mode === "sessions" ? serveSessions : undefined;
  const server = serve?.(serverFactory(env));
  if (!server) throw new Error(`unknown --transport ${mode}`);
  await new Promise<void>((listening) => server.listen(port, "127.0.0.1", listening));
  return server;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: { transport: { type: "string", default: "stdio" }, port: { type: "string", default: "0" } },
  });
  // Exits normally on SIGTERM, so that a --cpu-prof run writes its profile.
  process.once("SIGTERM", () => process.exit(0));
  if (values.transport === "stdio") serveStdio(serverFactory(process.env));
  else await serveBareHttp(values.transport, Number(values.port), process.env);
}
