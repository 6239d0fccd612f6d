// One way of serving MCP over HTTP, in its own process, for `npm run bench:http`: the SDK transport
// with SSE or JSON answers, stateful or a server per request, and a floor with no SDK transport at
// all. Built modules only; the variants exist here, not in the server, to measure where time goes.
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { DIST } from "./processes.js";

const load = <T>(path: string) => import(`${DIST}${path}`) as Promise<T>;
const [{ parseCommandLine }, { createUpstreams }, { createDispatcher }, { buildServer }, register, http] =
  await Promise.all([
    load<typeof import("../src/config.js")>("config.js"),
    load<typeof import("../src/clients/index.js")>("clients/index.js"),
    load<typeof import("../src/clients/http.js")>("clients/http.js"),
    load<typeof import("../src/server.js")>("server.js"),
    load<typeof import("../src/tools/register.js")>("tools/register.js"),
    load<typeof import("../src/transports/http.js")>("transports/http.js"),
  ]);

const variant = process.argv[2] ?? "";
const command = parseCommandLine(["--transport", "http", "--port", "0"], process.env);
if (command.kind !== "serve") throw new Error("unexpected command");
const upstreams = createUpstreams(command.config.upstream, createDispatcher());

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
  return chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : undefined;
}

/** A session per initialize, as the SDK examples do; `json` picks enableJsonResponse. */
function stateful(json: boolean) {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  return async (req: IncomingMessage, res: ServerResponse) => {
    const body = req.method === "POST" ? await readBody(req) : undefined;
    const id = req.headers["mcp-session-id"] as string | undefined;
    const known = id ? sessions.get(id) : undefined;
    if (known) return known.handleRequest(req, res, body);
    if (!isInitializeRequest(body)) return void res.writeHead(400).end();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      enableJsonResponse: json,
      onsessioninitialized: (sessionId) => void sessions.set(sessionId, transport),
    });
    transport.onclose = () => void sessions.delete(transport.sessionId ?? "");
    await buildServer(upstreams).connect(transport);
    await transport.handleRequest(req, res, body);
  };
}

/**
 * The SDK's web-standard transport without @hono/node-server: a minimal Request in, the Response's
 * bytes out (JSON answers only, enough for POSTs and DELETE).
 */
function webStandard() {
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  return async (req: IncomingMessage, res: ServerResponse) => {
    const body = req.method === "POST" ? await readBody(req) : undefined;
    const id = req.headers["mcp-session-id"] as string | undefined;
    let transport = id ? sessions.get(id) : undefined;
    if (!transport) {
      if (!isInitializeRequest(body)) return void res.writeHead(400).end();
      const created = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        enableJsonResponse: true,
        onsessioninitialized: (sessionId) => void sessions.set(sessionId, created),
      });
      created.onclose = () => void sessions.delete(created.sessionId ?? "");
      await buildServer(upstreams).connect(created);
      transport = created;
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers))
      if (typeof value === "string") headers.set(name, value);
    const request = new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers });
    const response = await transport.handleRequest(request, { parsedBody: body });
    const bytes = Buffer.from(await response.arrayBuffer());
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(bytes);
  };
}

/** A server and transport for every request, as the SDK's stateless example does. */
function perRequest(json: boolean) {
  return async (req: IncomingMessage, res: ServerResponse) => {
    const body = req.method === "POST" ? await readBody(req) : undefined;
    const server = buildServer(upstreams);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: json,
    });
    res.once("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };
}

/** No SDK transport nor Protocol: JSON-RPC straight to the tool list and callTool. The floor. */
function direct() {
  return async (req: IncomingMessage, res: ServerResponse) => {
    const message = (await readBody(req)) as {
      id?: number;
      method: string;
      params?: Record<string, unknown>;
    };
    if (message.id === undefined) return void res.writeHead(202).end();
    let result: unknown = {};
    if (message.method === "tools/list") result = register.TOOL_LIST;
    else if (message.method === "tools/call") {
      const { name, arguments: args } = message.params as {
        name: string;
        arguments?: Record<string, unknown>;
      };
      result = await register.callTool(upstreams, name, args);
    } else if (message.method === "initialize") {
      result = {
        protocolVersion: "2025-06-18",
        capabilities: { tools: {} },
        serverInfo: { name: "floor", version: "0" },
      };
    }
    const text = JSON.stringify({ result, jsonrpc: "2.0", id: message.id });
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
    res.end(text);
  };
}

const handlers: Record<string, () => (req: IncomingMessage, res: ServerResponse) => Promise<void>> = {
  "stateful-sse": () => stateful(false),
  "stateful-json": () => stateful(true),
  "web-standard-json": webStandard,
  "per-request-sse": () => perRequest(false),
  "per-request-json": () => perRequest(true),
  direct,
};

let url: string;
if (variant === "as-built") {
  const asBuilt = () => ({ identity: "bench", shapingHeaders: "", build: () => buildServer(upstreams) });
  url = (await http.serveHttp(asBuilt, command.config.http)).url;
} else {
  const handle = handlers[variant]?.();
  if (!handle) throw new Error(`unknown variant ${variant}`);
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      process.stderr.write(`${String(error)}\n`);
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}
process.send?.({ url });
process.once("disconnect", () => process.exit(0));
