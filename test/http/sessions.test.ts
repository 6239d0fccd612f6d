// Stateful mode: sessions end on DELETE and after an idle spell, are capped in number, and leave nothing
// behind (no session entry, timer or socket) once closed.
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { unreachedUpstream } from "../helpers.js";
import {
  capturingLog,
  eventually,
  initializeBody,
  MCP_HEADERS,
  openRawSession,
  rawRequest,
  rpcError,
  sseMessages,
  startGatedUpstream,
  startHttp,
  toolCallBody,
} from "../http-helpers.js";

// No test here calls a tool that reaches the upstream: a recorder is enough, and shows none arrives.
const unreachedUrl = unreachedUpstream();

const upstreamSettings = () => ({
  workspaceApiKey: "sessions-key",
  workspaceBaseUrl: unreachedUrl(),
  analyticsBaseUrl: unreachedUrl(),
});

/** How many resources of each kind keep the event loop alive. */
function activeResources(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) counts[kind] = (counts[kind] ?? 0) + 1;
  return counts;
}

// Four batches, each opened together and closed before the next: twice the server's cap of 20 and four
// times the key's cap of 10, so a session entry, open count or key count not given back refuses a later
// batch, beside the counts of sessions, timers and sockets checked at the end. One leaked per session
// shows in any number of sessions; more would only repeat the same batch.
const SESSIONS = 40;
const BATCH = 10;
const CAPS = ["--max-sessions", String(SESSIONS / 2), "--max-sessions-per-key", String(BATCH)];

describe("stateful sessions", () => {
  it(`opening and closing ${SESSIONS} sessions leaves no session, timer or socket behind`, async () => {
    const harness = await startHttp(CAPS, upstreamSettings());
    try {
      const before = activeResources();
      let peak = 0;
      await capturingLog(async () => {
        for (let opened = 0; opened < SESSIONS; opened += BATCH) {
          const clients = await Promise.all(Array.from({ length: BATCH }, () => harness.connect()));
          peak = Math.max(peak, harness.http.sessionCount());
          await Promise.all(clients.map((client) => client.ping()));
          for (const client of clients) {
            await (client.transport as StreamableHTTPClientTransport).terminateSession();
            await client.close();
          }
        }
      });
      expect(peak).toBe(BATCH);
      expect(harness.http.sessionCount()).toBe(0);
      expect(harness.http.timerCount()).toBe(0);
      await harness.closeClientPool();
      expect(await eventually(async () => (await harness.http.connectionCount()) === 0)).toBe(true);
      const after = activeResources();
      expect(after.Timeout ?? 0).toBeLessThanOrEqual(before.Timeout ?? 0);
      expect(after.TCPSocketWrap ?? 0).toBeLessThanOrEqual(before.TCPSocketWrap ?? 0);
    } finally {
      await harness.close();
    }
  });

  it("DELETE ends a session: a later request on it gets 404", async () => {
    const harness = await startHttp([], upstreamSettings());
    try {
      const client = await harness.connect();
      const transport = client.transport as StreamableHTTPClientTransport;
      const sessionId = transport.sessionId!;
      expect(harness.http.sessionCount()).toBe(1);
      await transport.terminateSession();
      expect(harness.http.sessionCount()).toBe(0);
      await client.close();
      const response = await rawRequest(harness.url, {
        method: "POST",
        headers: { ...MCP_HEADERS, "mcp-session-id": sessionId },
        body: toolCallBody("whoami"),
      });
      expect([response.status, response.body]).toEqual([
        404,
        rpcError(-32001, "Session not found (expired or closed): initialize a new one"),
      ]);
    } finally {
      await harness.close();
    }
  });

  it("an idle session expires after --session-idle-ms; its id then gets 404", async () => {
    const harness = await startHttp(["--session-idle-ms", "200"], upstreamSettings());
    try {
      const sessionId = await openRawSession(harness.url);
      expect(harness.http.sessionCount()).toBe(1);
      expect(harness.http.timerCount()).toBe(1);
      expect(await eventually(() => harness.http.sessionCount() === 0)).toBe(true);
      expect(harness.http.timerCount()).toBe(0);
      const response = await rawRequest(harness.url, {
        method: "POST",
        headers: { ...MCP_HEADERS, "mcp-session-id": sessionId },
        body: toolCallBody("whoami"),
      });
      expect(response.status).toBe(404);
    } finally {
      await harness.close();
    }
  });

  it("a session is not idle while a call is in flight, however long the call takes", async () => {
    const upstream = await startGatedUpstream({ projects: [{ id: "p1", name: "Only" }] });
    // 400 ms: long enough for the call to reach the server after its session opens, even when other
    // test files crowd both cores; the call is then held for an idle spell.
    const harness = await startHttp(["--session-idle-ms", "400"], {
      workspaceApiKey: "k",
      workspaceBaseUrl: upstream.url,
      analyticsBaseUrl: upstream.url,
    });
    try {
      const sessionId = await openRawSession(harness.url);
      const call = rawRequest(harness.url, {
        method: "POST",
        headers: { ...MCP_HEADERS, "mcp-session-id": sessionId },
        body: toolCallBody("whoami"),
      });
      await upstream.arrived(1);
      expect(harness.http.timerCount()).toBe(0);
      // An idle spell passes with the call held upstream, measured by a second session opened now that
      // makes no call: it expires after one spell. Had the held session an idle timer, armed before this
      // one's with the same length, it would have expired first; so once the second is gone (404), the
      // held session must be the one left.
      const idleSessionId = await openRawSession(harness.url);
      expect(await eventually(() => harness.http.sessionCount() < 2)).toBe(true);
      const expired = await rawRequest(harness.url, {
        method: "POST",
        headers: { ...MCP_HEADERS, "mcp-session-id": idleSessionId },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
      });
      expect([expired.status, expired.body]).toEqual([
        404,
        rpcError(-32001, "Session not found (expired or closed): initialize a new one"),
      ]);
      expect(harness.http.sessionCount()).toBe(1);
      upstream.release();
      const response = await call;
      expect(response.status).toBe(200);
      expect(sseMessages(response.body)).toEqual([
        {
          jsonrpc: "2.0",
          id: 7,
          result: {
            content: [{ type: "text", text: '{"projects":[{"id":"p1","name":"Only"}]}' }],
            structuredContent: { projects: [{ id: "p1", name: "Only" }] },
          },
        },
      ]);
      expect(await eventually(() => harness.http.sessionCount() === 0)).toBe(true);
    } finally {
      await harness.close();
      await upstream.close();
    }
  });

  it("--max-sessions caps open sessions: one more gets 503 with Retry-After, and a freed place is reused", async () => {
    const harness = await startHttp(["--max-sessions", "2"], upstreamSettings());
    try {
      const first = await harness.connect();
      const second = await harness.connect();
      const refused = await rawRequest(harness.url, {
        method: "POST",
        headers: MCP_HEADERS,
        body: initializeBody(),
      });
      expect([refused.status, refused.body]).toEqual([
        503,
        rpcError(
          -32000,
          "Service Unavailable: 2 sessions are open, the most this server allows; retry later",
        ),
      ]);
      expect(refused.headers["retry-after"]).toBe("30");
      await expect(harness.connect()).rejects.toThrow(/Service Unavailable: 2 sessions are open/);
      expect(harness.http.sessionCount()).toBe(2);

      await (first.transport as StreamableHTTPClientTransport).terminateSession();
      await first.close();
      const third = await harness.connect();
      expect((await third.listTools()).tools.length).toBe(14);
      await Promise.all([second.close(), third.close()]);
    } finally {
      await harness.close();
    }
  });
});
