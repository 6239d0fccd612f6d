// --confirm-writes over real sockets: the person's yes or no reaches the server through HTTP in both
// eras (2026-07-28: the client calls again with the answer; 2025 session: the server's elicitation/create
// rides the call's event stream and the answer comes back as a POST), a 2025 client of a --stateless
// server cannot be asked and is refused, and the built CLI reads the setting on stdio.

import { readFileSync } from "node:fs";
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttpTransport,
} from "@modelcontextprotocol/client";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as LegacyStdioTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as LegacyHttpTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type CallToolResult, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { MAX_CONFIRMATION_CHARS } from "../../src/tools/confirm.js";
import { CLI, childEnv, type Recorder, startRecorder, textOf } from "../helpers.js";
import { type HttpHarness, startHttp } from "../http-helpers.js";
import { InPlaceStdioClientTransport } from "../stdio-client.js";

const MODERN = "2026-07-28";
const KEY = "confirm-e2e-key-0123456789";
const PROJECT = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
const TASK = "6f1c2b9e-3a4d-4e5f-8a7b-9c0d1e2f3a4b";
const COMMENT = { id: "11111111-2222-4333-8444-555555555555", task_id: TASK, body: "Shipped." };
const ARGS = { task_id: TASK, body: "Shipped." };
const SHOWN = [
  "The assistant asks to comment on a task (tasks_comments). Nothing is sent unless you accept; it is sent exactly as shown.",
  "",
  "action: create",
  `task_id: ${TASK}`,
  "body: Shipped.",
  `project_id not given: ${PROJECT}, the default.`,
].join("\n");

type Action = "accept" | "decline" | "cancel";
const answerOf = (action: Action) => (action === "accept" ? { action, content: {} } : { action });

let upstream: Recorder;
let http: HttpHarness | undefined;
beforeEach(async () => {
  upstream = await startRecorder(() => ({ body: COMMENT }));
});
afterEach(async () => {
  await http?.close();
  http = undefined;
  await upstream.close();
});

const settings = () => ({
  workspaceBaseUrl: upstream.url,
  analyticsBaseUrl: upstream.url,
  workspaceApiKey: KEY,
  workspaceProjectId: PROJECT,
  confirmWrites: true,
});

/** The comment POSTs the upstream received: one on accept, none otherwise. */
const commentPosts = (recorder = upstream) =>
  recorder.requests.filter(({ path }) => path === "/api/v1/business/tasks/comments").map(({ body }) => body);

/** SDK v2's client on 2026-07-28, answering every elicitation with `action`; `asked` records the messages. */
function modernClient(action: Action, asked: string[]) {
  const client = new ModernClient(
    { name: "confirm-modern", version: "1.0.0" },
    { versionNegotiation: { mode: { pin: MODERN } }, capabilities: { elicitation: { form: {} } } },
  );
  client.setRequestHandler("elicitation/create", async (request) => {
    asked.push((request.params as { message: string }).message);
    return answerOf(action);
  });
  return client;
}

/**
 * SDK 1.x's client (2025-11-25), declaring elicitation when `action` is given: that answer to every
 * question, or, given several, one to each question in turn.
 */
function legacyClient(action: Action | readonly Action[] | undefined, asked: string[]) {
  const client = new LegacyClient(
    { name: "confirm-legacy", version: "1.0.0" },
    { capabilities: action ? { elicitation: {} } : {} },
  );
  if (action) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push((request.params as { message: string }).message);
      const answer = typeof action === "string" ? action : action[asked.length - 1];
      if (!answer) throw new Error(`asked more than ${action.length} times`);
      return answerOf(answer);
    });
  }
  return client;
}

describe.each([[[]], [["--stateless"]]])("HTTP %j, 2026-07-28", (argv: string[]) => {
  it.each(["accept", "decline", "cancel"] as const)("the person answers %s", async (action) => {
    http = await startHttp(argv, settings());
    const asked: string[] = [];
    const client = modernClient(action, asked);
    await client.connect(new ModernHttpTransport(new URL(http.url)));
    try {
      const result = await client.callTool({ name: "tasks_comments", arguments: ARGS });
      expect(asked).toEqual([SHOWN]);
      if (action === "accept") {
        expect(commentPosts()).toEqual([{ action: "create", ...ARGS }]);
        expect(result.structuredContent).toEqual(COMMENT);
      } else {
        expect(commentPosts()).toEqual([]);
        expect(result.structuredContent).toEqual({
          sent: false,
          decision: action === "decline" ? "declined" : "cancelled",
        });
      }
    } finally {
      await client.close();
    }
  });
});

describe("HTTP, a 2025 session", () => {
  it.each(["accept", "decline", "cancel"] as const)("the person answers %s", async (action) => {
    http = await startHttp([], settings());
    const asked: string[] = [];
    const client = legacyClient(action, asked);
    await client.connect(new LegacyHttpTransport(new URL(http.url)));
    try {
      const result = (await client.callTool({ name: "tasks_comments", arguments: ARGS })) as CallToolResult;
      expect(asked).toEqual([SHOWN]);
      expect(commentPosts()).toEqual(action === "accept" ? [{ action: "create", ...ARGS }] : []);
      expect(result.isError).toBeUndefined();
    } finally {
      await client.close();
    }
  });

  it("a client without elicitation is refused, naming the setting", async () => {
    http = await startHttp([], settings());
    const client = legacyClient(undefined, []);
    await client.connect(new LegacyHttpTransport(new URL(http.url)));
    try {
      const result = (await client.callTool({ name: "tasks_comments", arguments: ARGS })) as CallToolResult;
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain(
        "(MCP_CONFIRM_WRITES / --confirm-writes), and this client did not declare",
      );
      expect(commentPosts()).toEqual([]);
    } finally {
      await client.close();
    }
  });
});

describe("HTTP --stateless, a 2025 client", () => {
  it("cannot be asked, even declaring elicitation: refused, naming the setting, nothing sent", async () => {
    http = await startHttp(["--stateless"], settings());
    const asked: string[] = [];
    const client = legacyClient("accept", asked);
    await client.connect(new LegacyHttpTransport(new URL(http.url)));
    try {
      const result = (await client.callTool({ name: "tasks_comments", arguments: ARGS })) as CallToolResult;
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe(
        "tasks_comments: not sent. This server asks the person to confirm every call that creates data (MCP_CONFIRM_WRITES / --confirm-writes), and this connection cannot carry a question to the person (a 2025 client over HTTP without a session, as with --stateless). Tell the person; they can post it themselves, use a client that supports elicitation, or have the operator turn the setting off.",
      );
      expect(asked).toEqual([]);
      expect(commentPosts()).toEqual([]);
    } finally {
      await client.close();
    }
  });
});

describe("docs/confirm-writes.md", () => {
  it("shows the question these tests see, and the bound the server keeps", () => {
    const page = readFileSync(new URL("../../docs/confirm-writes.md", import.meta.url), "utf8");
    expect(page).toContain(`\`\`\`text\n${SHOWN}\n\`\`\``);
    expect(page).toContain(`A question longer than ${MAX_CONFIRMATION_CHARS} characters is not asked`);
  });
});

/** The built CLI's stdio, with `recorder` as both APIs and `extra` on top. */
const stdioServer = (recorder: Recorder, args: string[], extra: Record<string, string> = {}) => ({
  command: process.execPath,
  args: [CLI, ...args],
  env: childEnv({
    WORKSPACE_BASE_URL: recorder.url,
    ANALYTICS_BASE_URL: recorder.url,
    WORKSPACE_API_KEY: KEY,
    WORKSPACE_PROJECT_ID: PROJECT,
    ...extra,
  }),
  stderr: "ignore" as const,
});

/** A stdio client and its spawned server, with an upstream of its own and the questions it was asked. */
interface StdioRun<C> {
  upstream: Recorder;
  asked: string[];
  client: Promise<C>;
}

async function stdioRun<C>(
  start: (upstream: Recorder, asked: string[]) => { client: C; connect: () => Promise<void> },
): Promise<StdioRun<C>> {
  const upstream = await startRecorder(() => ({ body: COMMENT }));
  const asked: string[] = [];
  const { client, connect } = start(upstream, asked);
  const connecting = connect().then(() => client);
  connecting.catch(() => {}); // its test reports it
  return { upstream, asked, client: connecting };
}

// The stdio servers spawn before the first test, so they start while the HTTP tests run: one reads the
// flag and is asked twice by a 2025 client, the other reads the variable, with a 2026-07-28 client.
let fromFlag: StdioRun<LegacyClient>;
let fromEnv: StdioRun<ModernClient>;
beforeAll(async () => {
  fromFlag = await stdioRun((recorder, asked) => {
    const client = legacyClient(["decline", "accept"], asked);
    const transport = new LegacyStdioTransport(stdioServer(recorder, ["--confirm-writes"]));
    return { client, connect: () => client.connect(transport) };
  });
  fromEnv = await stdioRun((recorder, asked) => {
    const client = modernClient("accept", asked);
    const transport = new InPlaceStdioClientTransport(stdioServer(recorder, [], { MCP_CONFIRM_WRITES: "1" }));
    return { client, connect: () => client.connect(transport) };
  });
});
afterAll(async () => {
  // Closes what a test did not take (one filtered out); closing twice is harmless.
  const runs = [fromFlag, fromEnv];
  await Promise.allSettled(runs.map(async (run) => (await run.client).close()));
  await Promise.all(runs.map((run) => run.upstream.close()));
});

describe("stdio, the built CLI", () => {
  it("--confirm-writes, a 2025 client (SDK 1.x): declined, nothing sent; then accepted, exactly one comment sent", async () => {
    const { client: connecting, asked, upstream } = fromFlag;
    const client = await connecting;
    try {
      const declined = (await client.callTool({ name: "tasks_comments", arguments: ARGS })) as CallToolResult;
      expect(asked).toEqual([SHOWN]);
      expect(declined.structuredContent).toEqual({ sent: false, decision: "declined" });
      expect(commentPosts(upstream)).toEqual([]);
      const accepted = (await client.callTool({ name: "tasks_comments", arguments: ARGS })) as CallToolResult;
      expect(asked).toEqual([SHOWN, SHOWN]);
      expect(accepted.structuredContent).toEqual(COMMENT);
      expect(commentPosts(upstream)).toEqual([{ action: "create", ...ARGS }]);
    } finally {
      await client.close();
    }
  });

  it("MCP_CONFIRM_WRITES=1, a 2026-07-28 client (SDK v2): asked, and on accept exactly one comment is sent", async () => {
    const { client: connecting, asked, upstream } = fromEnv;
    const client = await connecting;
    try {
      await client.callTool({ name: "tasks_comments", arguments: ARGS });
      expect(asked).toEqual([SHOWN]);
      expect(commentPosts(upstream)).toEqual([{ action: "create", ...ARGS }]);
    } finally {
      await client.close();
    }
  });
});
