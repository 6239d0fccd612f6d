// The bench's stdio driver checks answers as their bytes arrive, without keeping them: what it reports
// for a line must not depend on where the reads split it, or the bench would count failures as calls.
import type { Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  PROTOCOL_VERSION_META_KEY,
} from "@modelcontextprotocol/server";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Answer,
  decode,
  HEAD_BYTES,
  HttpMcpDriver,
  MODERN_META,
  MODERN_PROTOCOL_VERSION,
  modernHeaders,
  modernRefusal,
  succeeded,
  withModernMeta,
} from "../../bench/jsonrpc.js";
import { TASKS_ARGUMENTS } from "../../bench/scenarios.js";
import { serveBareHttp } from "../../bench/sdk-bare-child.js";
import { LineScanner, StdioMcpDriver } from "../../bench/stdio-driver.js";
import {
  API_KEY,
  type BenchUpstream,
  PROJECT_ID,
  startBenchUpstream,
  TASKS_BODY,
} from "../../bench/upstream.js";
import { TOOL_LIST } from "../../src/tools/register.js";

const CLI = new URL("../../dist/cli.js", import.meta.url).pathname;

interface Seen {
  head: string;
  tail: string;
  toolError: boolean;
  whole?: string;
}

/** What the scanner reports for `text` fed as the given reads. */
function scan(reads: Buffer[], keepWhole: boolean): Seen[] {
  const seen: Seen[] = [];
  const scanner = new LineScanner(
    (head, tail, toolError, whole) =>
      seen.push({ head: head.toString(), tail: tail.toString(), toolError, whole: whole?.toString() }),
    () => keepWhole,
  );
  // Each read is handed over in a buffer that is overwritten afterwards, as onread does.
  const reused = Buffer.alloc(Math.max(...reads.map((read) => read.length), 1));
  for (const read of reads) {
    read.copy(reused);
    scanner.push(reused.subarray(0, read.length));
    reused.fill(0x2a);
  }
  return seen;
}

const toolError = `{"result":{"content":[{"type":"text","text":"no such task: ${"x".repeat(900)}"}],"isError":true},"jsonrpc":"2.0","id":7}`;
const success = `{"result":{"content":[{"type":"text","text":"{\\"isError\\":false}"}],"structuredContent":{"a":"${"é".repeat(400)}","lastError":true}},"jsonrpc":"2.0","id":8}`;
const list = `{"result":{"tools":[{"name":"x","description":"mentions \\"isError\\":true in prose"}]},"jsonrpc":"2.0","id":9}`;
const rpcError = '{"jsonrpc":"2.0","id":10,"error":{"code":-32601,"message":"Method not found"}}';
const lines = [toolError, success, list, rpcError];
const stream = Buffer.from(lines.map((line) => `${line}\n`).join(""));

function expected(keepWhole: boolean): Seen[] {
  return lines.map((line) => {
    const bytes = Buffer.from(line);
    return {
      head: bytes.subarray(0, HEAD_BYTES).toString(),
      tail: bytes.subarray(-64).toString(),
      toolError: line === toolError,
      whole: keepWhole ? line : undefined,
    };
  });
}

// Each suite runs beside the others (describe.concurrent): the built server starts while the scanner is
// checked; the stdio eras of the bare server take turns (it.sequential), so that the file starts no more
// than three processes at once.
describe.concurrent("the bench's stdio line scanner", () => {
  it("reports the same head, tail, tool-error flag and whole line wherever one split falls", () => {
    for (let split = 0; split <= stream.length; split++) {
      const seen = scan([stream.subarray(0, split), stream.subarray(split)], true);
      expect(seen, `split at ${split}`).toEqual(expected(true));
    }
  });

  it("finds a tool-error marker split byte by byte, and keeps nothing whole unless asked", () => {
    const reads = [...stream].map((byte) => Buffer.from([byte]));
    expect(scan(reads, false)).toEqual(expected(false));
  });

  it("drives the built server: ids matched, tool errors flagged, whole answers decoded", async () => {
    const driver = await StdioMcpDriver.spawn([CLI], { PATH: process.env.PATH });
    try {
      const first = await driver.initialize("tools/list");
      expect(first.head).toBe(
        JSON.stringify({ result: TOOL_LIST, jsonrpc: "2.0", id: 2 }).slice(0, HEAD_BYTES),
      );
      expect(first.toolError).toBe(false);
      expect(first.text).toBeUndefined();
      const [listed, refused, pinged] = await Promise.all([
        driver.request("tools/list", undefined, { whole: true }),
        driver.request("tools/call", { name: "whoami", arguments: { extra: 1 } }),
        driver.request("ping"),
      ]);
      expect(decode(listed)).toEqual({ result: TOOL_LIST, jsonrpc: "2.0", id: 3 });
      expect(refused.toolError).toBe(true);
      const text =
        "whoami: invalid arguments, nothing was sent. Fix and call again:\n- extra: unknown key; allowed here: workspace_id, response_format";
      const result = { content: [{ type: "text", text }], isError: true };
      expect(refused.head).toBe(JSON.stringify({ result, jsonrpc: "2.0", id: 4 }));
      expect(pinged).toEqual({
        head: '{"result":{},"jsonrpc":"2.0","id":5}',
        toolError: false,
        text: undefined,
      });
    } finally {
      await driver.close();
    }
  });
});

// The bare SDK v2 server the bench compares ours with (bench/sdk-bare-child.ts), driven in both eras:
// over stdio compiled by esbuild into bench/.out/test/ (node_modules still resolve from there) and
// spawned as the bench spawns it; over HTTP served from this process (the drivers' subject is the wire,
// which is the same real socket).
describe.concurrent("the bench drivers against the bare SDK v2 server", () => {
  let upstream: BenchUpstream;
  let bareChild: string;
  const servers: HttpServer[] = [];

  beforeAll(async () => {
    upstream = await startBenchUpstream();
    bareChild = fileURLToPath(new URL("../../bench/.out/test/sdk-bare-child.mjs", import.meta.url));
    await build({
      entryPoints: [fileURLToPath(new URL("../../bench/sdk-bare-child.ts", import.meta.url))],
      outfile: bareChild,
      bundle: true,
      packages: "external",
      platform: "node",
      format: "esm",
      logLevel: "error",
    });
  });

  afterAll(async () => {
    await Promise.all(
      servers.map(
        (server) =>
          new Promise((closed) => {
            server.close(closed);
            server.closeAllConnections();
          }),
      ),
    );
    await upstream?.close();
  });

  const env = () => ({
    PATH: process.env.PATH,
    WORKSPACE_BASE_URL: upstream.url,
    WORKSPACE_API_KEY: API_KEY,
    WORKSPACE_PROJECT_ID: PROJECT_ID,
  });

  /** The bare server over HTTP on a free loopback port, once it listens. */
  async function startBare(mode: "http" | "sessions"): Promise<string> {
    const server = await serveBareHttp(mode, 0, env());
    servers.push(server);
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  }

  let bareHttp: Promise<string> | undefined;
  /** The bare stateless HTTP server, one for the suite: started by the first test that asks for it. */
  const sharedBareHttp = () => {
    bareHttp ??= startBare("http");
    return bareHttp;
  };

  const tasksCall = { name: "tasks_query", arguments: TASKS_ARGUMENTS };

  /** A tasks_query answer is a result whose blocks carry the upstream body. */
  function expectTasksResult(answer: Answer, id: number): void {
    expect(succeeded(answer)).toBe(true);
    const { result } = decode(answer) as { result: Record<string, unknown> };
    expect(result.content).toEqual([{ type: "text", text: TASKS_BODY }]);
    expect(result.structuredContent).toEqual(JSON.parse(TASKS_BODY));
    expect(answer.text?.endsWith(`,"id":${id}}`)).toBe(true);
  }

  it("frames 2026-07-28 with the SDK's own envelope keys and headers", () => {
    expect(Object.keys(MODERN_META).sort()).toEqual(
      [PROTOCOL_VERSION_META_KEY, CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY].sort(),
    );
    expect(MODERN_META[PROTOCOL_VERSION_META_KEY]).toBe(MODERN_PROTOCOL_VERSION);
    expect(withModernMeta({ name: "x", _meta: { progressToken: 1 } })).toEqual({
      name: "x",
      _meta: { ...MODERN_META, progressToken: 1 },
    });
    expect(modernHeaders("tools/call", tasksCall)).toEqual({
      "mcp-protocol-version": MODERN_PROTOCOL_VERSION,
      "mcp-method": "tools/call",
      "mcp-name": "tasks_query",
    });
    expect(modernHeaders("tools/list", undefined)).toEqual({
      "mcp-protocol-version": MODERN_PROTOCOL_VERSION,
      "mcp-method": "tools/list",
    });
  });

  it.sequential.each(["legacy", "modern"] as const)("calls tasks_query over stdio, %s era", async (era) => {
    const driver = await StdioMcpDriver.spawn([bareChild, "--transport", "stdio"], env(), era);
    try {
      expect(succeeded(await driver.open("tools/list"))).toBe(true);
      const id = era === "legacy" ? 3 : 2;
      expectTasksResult(await driver.request("tools/call", tasksCall, { whole: true }), id);
      if (era === "modern") expect(await modernRefusal(driver)).toBeUndefined();
    } finally {
      await driver.close();
    }
  });

  it("calls tasks_query over HTTP: 2026-07-28 and 2025 stateless on createMcpHandler, 2025 sessions", async () => {
    const [http, sessions] = await Promise.all([sharedBareHttp(), startBare("sessions")]);
    const modern = await HttpMcpDriver.connect(http, 4, undefined, "modern");
    const stateless = await HttpMcpDriver.connect(http, 4);
    const sessionful = await HttpMcpDriver.connect(sessions, 4);
    try {
      expect(await modernRefusal(modern)).toBeUndefined();
      expectTasksResult(await modern.request("tools/call", tasksCall, { whole: true }), 2);
      expect(stateless.sessionId).toBeUndefined();
      expectTasksResult(await stateless.request("tools/call", tasksCall, { whole: true }), 1);
      expect(sessionful.sessionId).toMatch(/^[0-9a-f-]{36}$/);
      expectTasksResult(await sessionful.request("tools/call", tasksCall, { whole: true }), 1);
    } finally {
      await Promise.all([modern.close(), stateless.close(), sessionful.close()]);
    }
  });

  it("is refused by the SDK when the envelope lacks a required key: the framing is checked", async () => {
    const url = await sharedBareHttp();
    const { [CLIENT_CAPABILITIES_META_KEY]: _, ...partial } = MODERN_META;
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...modernHeaders("tools/call", tasksCall),
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { ...tasksCall, _meta: partial },
      }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: number } }).error.code).toBe(-32602);
  });
});

describe.concurrent("the bench's 2026-07-28 check on the built server", () => {
  it("finds the revision served (and tools/list answered in it) or names why not", async () => {
    const driver = await StdioMcpDriver.spawn([CLI], { PATH: process.env.PATH }, "modern");
    try {
      const refusal = await modernRefusal(driver);
      if (refusal === undefined) {
        const listed = decode(await driver.request("tools/list", undefined, { whole: true })).result;
        expect(listed).toMatchObject({ ...TOOL_LIST, resultType: "complete" });
      } else {
        expect(refusal).toMatch(/server\/discover/);
      }
    } finally {
      await driver.close();
    }
  });
});
