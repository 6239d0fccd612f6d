// What HTTP clients that are not well-behaved MCP clients meet: malformed requests, foreign Host and
// Origin headers, a missing or wrong token, CORS; and the refusal to serve beyond loopback unguarded.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/config/types.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { assertSafeBinding } from "../../src/transports/http/guards.js";
import { httpSettings } from "../helpers.js";
import {
  callTool,
  type HttpHarness,
  initializeBody,
  MCP_HEADERS,
  rawRequest,
  rpcError,
  startHttp,
} from "../http-helpers.js";

const CLI = new URL("../../dist/cli.js", import.meta.url).pathname;
const TOOLS_LIST = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" });

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(async () => {
  await sandbox.close();
});

function sandboxSettings() {
  return {
    workspaceApiKey: sandbox.apiKey,
    workspaceBaseUrl: sandbox.workspaceBaseUrl,
    analyticsBaseUrl: sandbox.analyticsBaseUrl,
    workspaceProjectId: sandbox.workspaceProjectId,
  };
}

async function expectWhoamiWorks(client: Client): Promise<void> {
  const result = await callTool(client, "whoami");
  expect(result.isError).toBeUndefined();
  expect((result.structuredContent as { projects: { id: string }[] }).projects.map((p) => p.id)).toEqual(
    sandbox.ids.workspaceProjects,
  );
}

describe("malformed requests get the matching 4xx with a JSON-RPC error, and the server keeps serving", () => {
  let harness: HttpHarness;
  let client: Client;
  beforeAll(async () => {
    harness = await startHttp(["--max-body-bytes", "1000"], sandboxSettings());
    client = await harness.connect();
  });
  afterAll(async () => {
    await client.close();
    await harness.close();
  });

  const padded = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/list",
    params: { pad: "x".repeat(2000) },
  });
  const cases: [
    string,
    { method?: string; headers: Record<string, string>; body?: string },
    number,
    unknown,
  ][] = [
    [
      "a wrong Content-Type",
      { method: "POST", headers: { ...MCP_HEADERS, "content-type": "text/plain" }, body: initializeBody() },
      415,
      rpcError(-32000, "Unsupported Media Type: Content-Type must be application/json"),
    ],
    [
      "a missing Accept",
      { method: "POST", headers: { "content-type": "application/json" }, body: initializeBody() },
      406,
      rpcError(-32000, "Not Acceptable: Client must accept both application/json and text/event-stream"),
    ],
    [
      "malformed JSON",
      { method: "POST", headers: MCP_HEADERS, body: '{"jsonrpc": "2.0", "id": 1,' },
      400,
      rpcError(-32700, "Parse error: the body is not valid JSON"),
    ],
    [
      "an unknown session",
      {
        method: "POST",
        headers: { ...MCP_HEADERS, "mcp-session-id": "0e4b2a53-4c11-4d9c-9a8e-2f1d3c4b5a69" },
        body: TOOLS_LIST,
      },
      404,
      rpcError(-32001, "Session not found (expired or closed): initialize a new one"),
    ],
    [
      "no session on a request other than initialize",
      { method: "POST", headers: MCP_HEADERS, body: TOOLS_LIST },
      400,
      rpcError(-32000, "Bad Request: no Mcp-Session-Id; send initialize first"),
    ],
    [
      "a body over --max-body-bytes, declared by Content-Length",
      { method: "POST", headers: MCP_HEADERS, body: padded },
      413,
      rpcError(-32600, "Payload Too Large: the body exceeds 1000 bytes"),
    ],
    [
      "a body over --max-body-bytes, chunked",
      { method: "POST", headers: { ...MCP_HEADERS, "transfer-encoding": "chunked" }, body: padded },
      413,
      rpcError(-32600, "Payload Too Large: the body exceeds 1000 bytes"),
    ],
    [
      "a method /mcp does not serve",
      { method: "PUT", headers: MCP_HEADERS, body: TOOLS_LIST },
      405,
      rpcError(-32000, "Method Not Allowed: use POST, GET or DELETE"),
    ],
  ];

  it.each(cases)("%s", async (_name, request, status, body) => {
    const response = await rawRequest(harness.url, request);
    expect([response.status, response.body]).toEqual([status, body]);
    expect(response.headers["content-type"]).toBe("application/json");
    await expectWhoamiWorks(client);
  });

  it("an unknown path is a 404 and /mcp still answers", async () => {
    const response = await rawRequest(new URL("/other", harness.url).href);
    expect([response.status, response.body]).toEqual([404, { error: "Not found: the MCP endpoint is /mcp" }]);
    await expectWhoamiWorks(client);
  });
});

describe("Host and Origin checks", () => {
  let harness: HttpHarness;
  beforeAll(async () => {
    harness = await startHttp(["--allowed-hosts", "mcp.example.com"], sandboxSettings());
  });
  afterAll(async () => {
    await harness.close();
  });

  const post = (headers: Record<string, string>) =>
    rawRequest(harness.url, {
      method: "POST",
      headers: { ...MCP_HEADERS, ...headers },
      body: initializeBody(),
    });

  it.each([
    ["127.0.0.1:8080"],
    ["localhost"],
    ["LOCALHOST:3000"],
    ["[::1]:3000"],
    ["mcp.example.com"],
    ["mcp.example.com:443"],
  ])("accepts Host %s (loopback names with any port, and --allowed-hosts)", async (host) => {
    const response = await post({ host });
    expect(response.status).toBe(200);
    expect(response.headers["mcp-session-id"]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it.each([
    ["evil.example", 'Forbidden: Host "evil.example" is not allowed (see --allowed-hosts)'],
    [
      "mcp.example.com.evil.example",
      'Forbidden: Host "mcp.example.com.evil.example" is not allowed (see --allowed-hosts)',
    ],
    ["127.0.0.2:3000", 'Forbidden: Host "127.0.0.2:3000" is not allowed (see --allowed-hosts)'],
  ])("refuses Host %s with 403", async (host, message) => {
    const response = await post({ host });
    expect([response.status, response.body]).toEqual([403, rpcError(-32000, message)]);
  });

  it("refuses a foreign Origin even with an allowed Host, and accepts a loopback or allowed one", async () => {
    const foreign = await post({ origin: "http://evil.example" });
    expect([foreign.status, foreign.body]).toEqual([
      403,
      rpcError(-32000, 'Forbidden: Origin "http://evil.example" is not allowed (see --cors-origin)'),
    ]);
    const opaque = await post({ origin: "null" });
    expect(opaque.status).toBe(403);
    expect((await post({ origin: "http://localhost:5173" })).status).toBe(200);
    expect((await post({ origin: "https://mcp.example.com" })).status).toBe(200);
  });

  it("does not check /healthz: load balancers probe replicas by address", async () => {
    const response = await rawRequest(new URL("/healthz", harness.url).href, {
      headers: { host: "10.0.0.7:3000" },
    });
    expect(response.status).toBe(200);
  });
});

describe("bearer token", () => {
  const TOKEN = "s3cret-token-of-the-team";
  let harness: HttpHarness;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcp-token-"));
    writeFileSync(join(dir, "token"), `${TOKEN}\n`);
    harness = await startHttp(["--auth-token-file", join(dir, "token")], sandboxSettings());
  });
  afterAll(async () => {
    await harness.close();
  });

  it.each([
    ["no Authorization header", {}],
    ["a wrong token of the same length", { authorization: `Bearer ${"x".repeat(TOKEN.length)}` }],
    ["a wrong token of another length", { authorization: "Bearer short" }],
    ["the token in another scheme", { authorization: `Basic ${TOKEN}` }],
  ])("answers %s with 401 and WWW-Authenticate", async (_name, headers: Record<string, string>) => {
    const response = await rawRequest(harness.url, {
      method: "POST",
      headers: { ...MCP_HEADERS, ...headers },
      body: initializeBody(),
    });
    expect([response.status, response.body]).toEqual([
      401,
      rpcError(
        -32000,
        "Unauthorized: send Authorization: Bearer <token> with the token this server was given",
      ),
    ]);
    expect(response.headers["www-authenticate"]).toBe('Bearer realm="agent-workspace-mcp"');
    expect(JSON.stringify(response)).not.toContain(TOKEN);
  });

  it("serves an SDK client that sends the token", async () => {
    const client = await harness.connect({ authorization: `Bearer ${TOKEN}` });
    await expectWhoamiWorks(client);
    await client.close();
  });

  it("needs no token for /healthz and /readyz", async () => {
    expect((await rawRequest(new URL("/healthz", harness.url).href)).status).toBe(200);
    const ready = await rawRequest(new URL("/readyz", harness.url).href);
    expect([ready.status, ready.body]).toEqual([200, { status: "ready" }]);
  });
});

describe("CORS", () => {
  const preflight = (url: string, origin: string) =>
    rawRequest(url, {
      method: "OPTIONS",
      headers: {
        origin,
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type, authorization, x-api-key, mcp-session-id",
      },
    });

  it("is off by default: no Access-Control header, even for a loopback origin", async () => {
    const harness = await startHttp([], sandboxSettings());
    try {
      const response = await preflight(harness.url, "http://localhost:5173");
      expect(response.status).toBe(405);
      expect(Object.keys(response.headers).filter((name) => name.startsWith("access-control"))).toEqual([]);
    } finally {
      await harness.close();
    }
  });

  it("with --cors-origin, answers the preflight of a listed origin and exposes Mcp-Session-Id", async () => {
    const harness = await startHttp(["--cors-origin", "https://app.example"], sandboxSettings());
    try {
      const response = await preflight(harness.url, "https://app.example");
      expect(response.status).toBe(204);
      expect(response.headers).toMatchObject({
        "access-control-allow-origin": "https://app.example",
        "access-control-allow-methods": "GET, POST, DELETE, OPTIONS",
        "access-control-allow-headers": "content-type, authorization, x-api-key, mcp-session-id",
        "access-control-expose-headers": "Mcp-Session-Id, WWW-Authenticate",
      });
      const init = await rawRequest(harness.url, {
        method: "POST",
        headers: { ...MCP_HEADERS, origin: "https://app.example" },
        body: initializeBody(),
      });
      expect(init.status).toBe(200);
      expect(init.headers["access-control-allow-origin"]).toBe("https://app.example");
      expect(init.headers["access-control-expose-headers"]).toBe("Mcp-Session-Id, WWW-Authenticate");
      const unlisted = await preflight(harness.url, "https://other.example");
      expect(unlisted.status).toBe(403);
      expect(unlisted.headers["access-control-allow-origin"]).toBeUndefined();
    } finally {
      await harness.close();
    }
  });
});

describe("binding beyond loopback", () => {
  const settings = (argv: string[]) => httpSettings(["--host", "0.0.0.0", ...argv]);

  it("needs --allowed-hosts, and a token unless --allow-unauthenticated", () => {
    expect(() => assertSafeBinding(settings(["--allow-unauthenticated"]))).toThrow(
      new ConfigError(
        "--host 0.0.0.0 is beyond loopback: give --allowed-hosts with the host names clients will use (Host header check against DNS rebinding)",
        ["http.allowedHosts"],
      ),
    );
    expect(() => assertSafeBinding(settings(["--allowed-hosts", "mcp.example.com"]))).toThrow(
      new ConfigError(
        "--host 0.0.0.0 is beyond loopback: set MCP_AUTH_TOKEN or --auth-token-file, or pass --allow-unauthenticated if something in front of this server authenticates",
        ["http.authToken", "http.allowUnauthenticated"],
      ),
    );
    expect(() =>
      assertSafeBinding(settings(["--allowed-hosts", "mcp.example.com", "--allow-unauthenticated"])),
    ).not.toThrow();
    expect(() => assertSafeBinding(httpSettings(["--host", "127.0.0.5"]))).not.toThrow();
    expect(() => assertSafeBinding(httpSettings(["--host", "::1"]))).not.toThrow();
  });

  it("the built server refuses to start with exit code 2 and says why", async () => {
    const child = spawn(
      process.execPath,
      [CLI, "--transport", "http", "--host", "0.0.0.0", "--allowed-hosts", "a.example"],
      {
        env: { PATH: process.env.PATH ?? "" },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const [code] = await once(child, "exit");
    expect(code).toBe(2);
    expect(stderr.split("\n")[0]).toBe(
      "agent-workspace-mcp: --host 0.0.0.0 is beyond loopback: set MCP_AUTH_TOKEN or --auth-token-file, or pass --allow-unauthenticated if something in front of this server authenticates",
    );
  });
});
