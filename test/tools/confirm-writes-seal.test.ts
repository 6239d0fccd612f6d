// --confirm-writes cannot be skipped: an accept counts only with the state the server sealed for that
// very question (a keyed MAC over the tool, the arguments and an expiry), once, and only from a client
// that can ask. Forged, altered, expired, replayed, re-sent and capability-less accepts each post
// nothing: the recording upstream sees no POST. Over stdio (the SDK's serveStdio, in memory, both eras),
// HTTP sessions and --stateless, 2026-07-28 and 2025.
import { createHash, randomBytes } from "node:crypto";
import {
  deserializeMessage,
  InMemoryTransport,
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttpTransport,
  serializeMessage,
  type Transport,
} from "@modelcontextprotocol/client";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as LegacyHttpTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createDispatcher } from "../../src/clients/http.js";
import { createUpstreams } from "../../src/clients/index.js";
import { buildServer, type ServerOptions } from "../../src/server.js";
import { RATE_WINDOW_MS, rateLimitClock } from "../../src/state/rate-limit.js";
import { CONFIRMATION_MARK_PREFIX, memoryStore, type SharedStore } from "../../src/state/store.js";
import {
  CONFIRMATION_TTL_SECONDS,
  CONFIRMATIONS_PER_ADDRESS,
  CONFIRMATIONS_PER_MINUTE,
  canonicalJson,
} from "../../src/tools/confirm-state.js";
import { type Recorder, startRecorder, TEST_LIMITS, textOf } from "../helpers.js";
import { type HttpHarness, startHttp } from "../http-helpers.js";
import { startOAuth } from "../oauth-harness.js";

const MODERN = "2026-07-28";
const PROJECT = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
const TASK = "6f1c2b9e-3a4d-4e5f-8a7b-9c0d1e2f3a4b";
const COMMENT = { id: "11111111-2222-4333-8444-555555555555", task_id: TASK, body: "Shipped." };
const ARGS = { task_id: TASK, body: "Shipped." };
const ACCEPT = { confirm_write: { action: "accept", content: {} } };
const DECLINE = { confirm_write: { action: "decline" } };

let upstream: Recorder;
const closers: (() => Promise<void>)[] = [];
// Each test counts its confirmations in a minute of its own: the budget per key is not what these test.
const realRateClock = rateLimitClock.now;
let window = 0;
beforeEach(async () => {
  const at = ++window * RATE_WINDOW_MS;
  rateLimitClock.now = () => at;
  upstream = await startRecorder(() => ({ body: COMMENT }));
});
afterEach(async () => {
  rateLimitClock.now = realRateClock;
  vi.useRealTimers();
  for (const close of closers.splice(0).reverse()) await close();
  await upstream.close();
});

const settings = () => ({
  ...TEST_LIMITS,
  workspaceBaseUrl: upstream.url,
  analyticsBaseUrl: upstream.url,
  workspaceApiKey: "confirm-seal-key-0123456789",
  workspaceProjectId: PROJECT,
  confirmWrites: true,
});

/** Every POST the upstream received: a write that got through. */
const posts = () => upstream.requests.filter(({ method }) => method === "POST").map(({ body }) => body);

type Result = Record<string, unknown> & { resultType?: string; requestState?: string; isError?: boolean };

/** A 2026-07-28 client that answers nothing itself: the test sends each round's answer and state by hand. */
interface Manual {
  /** tools/call of tasks_comments with ARGS (or `args`), carrying `extra` (inputResponses, requestState). */
  call(extra?: Record<string, unknown>, args?: Record<string, unknown>): Promise<Result>;
}

function manualClient(transport: () => Transport, elicitation: boolean): () => Promise<Manual> {
  return async () => {
    const client = new ModernClient(
      { name: "confirm-seal", version: "1.0.0" },
      {
        versionNegotiation: { mode: { pin: MODERN } },
        capabilities: elicitation ? { elicitation: { form: {} } } : {},
        inputRequired: { autoFulfill: false },
      },
    );
    await client.connect(transport());
    closers.push(() => client.close());
    return {
      call: async (extra = {}, args = ARGS) =>
        (await client.callTool(
          { name: "tasks_comments", arguments: args, ...extra },
          { allowInputRequired: true },
        )) as unknown as Result,
    };
  };
}

/** The server as stdio serves it, in memory; each connect() opens a new connection to it. */
function inMemoryServer(options: Omit<ServerOptions, "tools"> = {}, workspaceApiKey?: string) {
  const upstreamSettings = { ...settings(), ...(workspaceApiKey ? { workspaceApiKey } : {}) };
  const dispatcher = createDispatcher(upstreamSettings);
  const upstreams = createUpstreams(upstreamSettings, dispatcher);
  closers.push(() => dispatcher.close());
  return () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    for (const side of [clientSide, serverSide]) {
      const send = side.send.bind(side);
      side.send = (message, sendOptions) => send(deserializeMessage(serializeMessage(message)), sendOptions);
    }
    const served = serveStdio(() => buildServer(upstreams, options), { transport: serverSide });
    closers.push(() => served.close());
    return clientSide;
  };
}

async function httpServer(argv: string[]) {
  const http: HttpHarness = await startHttp(argv, settings());
  closers.push(() => http.close());
  return () => new ModernHttpTransport(new URL(http.url));
}

/** The sealed state's body (base64url JSON) with `change` applied, under the original MAC. */
function altered(state: string, change: (envelope: { p: Record<string, unknown>; exp: number }) => void) {
  const [version, body, mac] = state.split(".") as [string, string, string];
  const envelope = JSON.parse(Buffer.from(body, "base64url").toString("utf8"));
  change(envelope);
  return `${version}.${Buffer.from(JSON.stringify(envelope)).toString("base64url")}.${mac}`;
}

/** A state in the server's format, for this very call, signed with a key the server does not hold. */
function forgedState(): string {
  const call = createHash("sha256")
    .update(canonicalJson(["tasks_comments", { action: "create", ...ARGS }, PROJECT]))
    .digest("base64url");
  const envelope = { p: { tool: "tasks_comments", call, nonce: "forged" }, exp: 4_102_444_800 };
  return `v1.${Buffer.from(JSON.stringify(envelope)).toString("base64url")}.${randomBytes(32).toString("base64url")}`;
}

const expectAskedAgain = (result: Result) => {
  expect(result.resultType).toBe("input_required");
  expect(posts()).toEqual([]);
};

const SERVERS = [
  ["stdio", async () => inMemoryServer()],
  ["HTTP sessions", () => httpServer([])],
  ["HTTP --stateless", () => httpServer(["--stateless"])],
] as const;

describe.each(SERVERS)("2026-07-28 over %s", (_name, start) => {
  const open = async (elicitation = true) => manualClient(await start(), elicitation);

  it("an accept with the state of its question posts once; the same accept sent again posts nothing more", async () => {
    const client = await (await open())();
    const question = await client.call();
    expect(question.resultType).toBe("input_required");
    const accepted = await client.call({ inputResponses: ACCEPT, requestState: question.requestState });
    expect(accepted.structuredContent).toEqual(COMMENT);
    expect(posts()).toEqual([{ action: "create", ...ARGS }]);
    const replayed = await client.call({ inputResponses: ACCEPT, requestState: question.requestState });
    expect(replayed.isError).toBe(true);
    expect(textOf(replayed as never)).toBe(
      "tasks_comments: not sent again: this answer was given once already, and an answer counts for one call. If the person wants another, call again without it; they will be asked.",
    );
    expect(posts()).toHaveLength(1);
  });

  it("an accept without a state, or with a forged one, is not counted: the person is asked, nothing posted", async () => {
    const client = await (await open())();
    expectAskedAgain(await client.call({ inputResponses: ACCEPT }));
    expectAskedAgain(await client.call({ inputResponses: ACCEPT, requestState: forgedState() }));
    expectAskedAgain(await client.call({ inputResponses: ACCEPT, requestState: "confirm:anything" }));
  });

  it("an accept whose state was altered (nonce, tool, arguments, expiry) posts nothing", async () => {
    const client = await (await open())();
    const { requestState } = await client.call();
    const changes = [
      (e: { p: Record<string, unknown>; exp: number }) => {
        e.p.nonce = "another";
      },
      (e: { p: Record<string, unknown> }) => {
        e.p.call = "AAAA";
      },
      (e: { exp: number }) => {
        e.exp += 3600;
      },
    ];
    for (const change of changes) {
      expectAskedAgain(
        await client.call({ inputResponses: ACCEPT, requestState: altered(requestState!, change) }),
      );
    }
    // The MAC itself flipped.
    const flipped = `${requestState!.slice(0, -2)}${requestState!.endsWith("AA") ? "BB" : "AA"}`;
    expectAskedAgain(await client.call({ inputResponses: ACCEPT, requestState: flipped }));
  });

  it("a declined question's state cannot be sent back as an accept", async () => {
    const client = await (await open())();
    const { requestState } = await client.call();
    const declined = await client.call({ inputResponses: DECLINE, requestState });
    expect(declined.structuredContent).toEqual({ sent: false, decision: "declined" });
    const accepted = await client.call({ inputResponses: ACCEPT, requestState });
    expect(accepted.isError).toBe(true);
    expect(posts()).toEqual([]);
  });

  it("an accept past the question's expiry posts nothing: the person is asked again", async () => {
    const client = await (await open())();
    const { requestState } = await client.call();
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + (CONFIRMATION_TTL_SECONDS + 5) * 1000 });
    expectAskedAgain(await client.call({ inputResponses: ACCEPT, requestState }));
  });

  it("an accept with the state of another call's question posts nothing", async () => {
    const client = await (await open())();
    const { requestState } = await client.call({}, { task_id: TASK, body: "Something else" });
    expectAskedAgain(await client.call({ inputResponses: ACCEPT, requestState }));
  });

  it("a client that does not declare elicitation is refused before its accept is read", async () => {
    const connect = await open();
    const { requestState } = await (await connect()).call();
    const capabilityless = await (await open(false))();
    const result = await capabilityless.call({ inputResponses: ACCEPT, requestState });
    expect(result.isError).toBe(true);
    expect(textOf(result as never)).toContain("this client did not declare the elicitation capability");
    expect(posts()).toEqual([]);
  });
});

describe("2025 clients that put an answer into tools/call themselves", () => {
  /** SDK 1.x over HTTP, declaring elicitation and declining whatever it is really asked. */
  async function legacy(argv: string[], elicitation: boolean) {
    const http = await startHttp(argv, settings());
    closers.push(() => http.close());
    const client = new LegacyClient(
      { name: "confirm-seal-legacy", version: "1.0.0" },
      { capabilities: elicitation ? { elicitation: {} } : {} },
    );
    const asked: string[] = [];
    if (elicitation) {
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        asked.push((request.params as { message: string }).message);
        return { action: "decline" };
      });
    }
    await client.connect(new LegacyHttpTransport(new URL(http.url)));
    closers.push(() => client.close());
    const call = (requestState: string) =>
      client.request(
        {
          method: "tools/call",
          params: { name: "tasks_comments", arguments: ARGS, inputResponses: ACCEPT, requestState },
        },
        CallToolResultSchema,
      );
    return { call, asked };
  }

  it.each([
    ["an HTTP session", [], true],
    ["an HTTP session, without elicitation", [], false],
    ["--stateless", ["--stateless"], true],
  ] as const)("over %s: a forged accept posts nothing", async (_name, argv, elicitation) => {
    const { call, asked } = await legacy([...argv], elicitation);
    const result = await call(forgedState()).catch((error: Error) => ({ error: error.message }));
    expect(posts()).toEqual([]);
    // The person, when the client can ask, was asked for real and said no; otherwise the call was refused.
    if (elicitation && argv.length === 0) {
      expect(asked).toHaveLength(1);
      expect(result).toMatchObject({ structuredContent: { sent: false, decision: "declined" } });
    } else {
      expect(asked).toEqual([]);
      expect(result).toMatchObject({ isError: true });
    }
  });
});

describe("a 2025 client over stdio that puts an answer into tools/call itself", () => {
  it("with a forged state: not counted; the person is asked for real, says no, and nothing is posted", async () => {
    const asked: string[] = [];
    const client = new ModernClient(
      { name: "confirm-seal-2025", version: "1.0.0" },
      { supportedProtocolVersions: ["2025-11-25"], capabilities: { elicitation: { form: {} } } },
    );
    client.setRequestHandler("elicitation/create", async (request) => {
      asked.push((request.params as { message: string }).message);
      return { action: "decline" };
    });
    await client.connect(inMemoryServer()());
    closers.push(() => client.close());
    const result = await client.request({
      method: "tools/call",
      params: {
        name: "tasks_comments",
        arguments: ARGS,
        inputResponses: ACCEPT,
        requestState: forgedState(),
      },
    });
    expect(asked).toHaveLength(1);
    expect(result).toMatchObject({ structuredContent: { sent: false, decision: "declined" } });
    expect(posts()).toEqual([]);
  });
});

describe("keys", () => {
  const first = randomBytes(32);
  const second = randomBytes(32);

  it("a state sealed under a key the server no longer holds posts nothing; one under a key it still verifies with counts (rotation)", async () => {
    const store = memoryStore();
    const old = await manualClient(inMemoryServer({ confirmKeys: [first], store }), true)();
    const retired = await manualClient(inMemoryServer({ confirmKeys: [second], store }), true)();
    const rotated = await manualClient(inMemoryServer({ confirmKeys: [second, first], store }), true)();
    const { requestState } = await old.call();
    expectAskedAgain(await retired.call({ inputResponses: ACCEPT, requestState }));
    const accepted = await rotated.call({ inputResponses: ACCEPT, requestState });
    expect(accepted.structuredContent).toEqual(COMMENT);
    expect(posts()).toHaveLength(1);
    // The new key seals: the old-key-only server cannot open what the rotated one now sends.
    const fresh = await rotated.call();
    const refused = await old.call({ inputResponses: ACCEPT, requestState: fresh.requestState });
    expect(refused.resultType).toBe("input_required");
    expect(posts()).toHaveLength(1);
  });

  it("two servers with the same keys and store (replicas) spend an answer once between them", async () => {
    const shared = { confirmKeys: [first], store: memoryStore() };
    const one = await manualClient(inMemoryServer(shared), true)();
    const other = await manualClient(inMemoryServer(shared), true)();
    const { requestState } = await one.call();
    expect((await other.call({ inputResponses: ACCEPT, requestState })).structuredContent).toEqual(COMMENT);
    expect((await one.call({ inputResponses: ACCEPT, requestState })).isError).toBe(true);
    expect(posts()).toHaveLength(1);
  });
});

describe("a store that lost its marks (a restart: Redis empty, or a new process with the same keys)", () => {
  it("refuses every state sealed before: an answer spent once is not spent again, an open question is asked again", async () => {
    const keys = [randomBytes(32)];
    const before = await manualClient(inMemoryServer({ confirmKeys: keys, store: memoryStore() }), true)();
    const spent = await before.call();
    const open = await before.call();
    const accepted = await before.call({ inputResponses: ACCEPT, requestState: spent.requestState });
    expect(accepted.structuredContent).toEqual(COMMENT);
    const after = await manualClient(inMemoryServer({ confirmKeys: keys, store: memoryStore() }), true)();
    for (const { requestState } of [spent, open]) {
      const again = await after.call({ inputResponses: ACCEPT, requestState });
      expect(again.resultType).toBe("input_required");
      expect(again.requestState).not.toBe(requestState);
    }
    expect(posts()).toHaveLength(1);
    // The question asked after the restart is answered as usual.
    const fresh = await after.call();
    expect(
      (await after.call({ inputResponses: ACCEPT, requestState: fresh.requestState })).structuredContent,
    ).toEqual(COMMENT);
    expect(posts()).toHaveLength(2);
  });

  it("a restart just before a replayed answer's mark is written still refuses it: the epoch is read after the mark", async () => {
    let inner = memoryStore();
    let restartOnMark = false;
    const store: SharedStore = {
      ...Object.fromEntries(
        (["get", "set", "take", "swap", "increment", "delete", "close"] as const).map((name) => [
          name,
          (...args: unknown[]) => (inner[name] as (...a: unknown[]) => unknown)(...args),
        ]),
      ),
      setIfAbsent: async (key, value, ttl) => {
        if (restartOnMark && key.startsWith(CONFIRMATION_MARK_PREFIX)) {
          restartOnMark = false;
          inner = memoryStore();
        }
        return inner.setIfAbsent(key, value, ttl);
      },
    } as SharedStore;
    const client = await manualClient(inMemoryServer({ confirmKeys: [randomBytes(32)], store }), true)();
    const { requestState } = await client.call();
    expect((await client.call({ inputResponses: ACCEPT, requestState })).structuredContent).toEqual(COMMENT);
    restartOnMark = true;
    expect((await client.call({ inputResponses: ACCEPT, requestState })).resultType).toBe("input_required");
    expect(posts()).toHaveLength(1);
  });
});

describe("one key's confirmations per minute", () => {
  it(`are at most ${CONFIRMATIONS_PER_MINUTE} questions and answers: past that, when to try again, and no mark written`, async () => {
    const inner = memoryStore();
    const marks: string[] = [];
    const store: SharedStore = {
      ...inner,
      setIfAbsent: (key, value, ttlMs) => {
        if (key.startsWith(CONFIRMATION_MARK_PREFIX)) marks.push(key);
        return inner.setIfAbsent(key, value, ttlMs);
      },
    };
    const client = await manualClient(inMemoryServer({ store }), true)();
    // Each declined write is one question and one answer.
    for (let i = 0; i < CONFIRMATIONS_PER_MINUTE / 2; i++) {
      const question = await client.call();
      expect(question.resultType).toBe("input_required");
      const declined = await client.call({ inputResponses: DECLINE, requestState: question.requestState });
      expect(declined.structuredContent).toEqual({ sent: false, decision: "declined" });
    }
    const refused = await client.call();
    expect(refused.isError).toBe(true);
    expect(textOf(refused as never)).toBe(
      `tasks_comments: not sent: more than ${CONFIRMATIONS_PER_MINUTE} confirmations were asked or answered with this key in the last minute. Try again in 60 seconds.`,
    );
    expect(marks).toHaveLength(CONFIRMATIONS_PER_MINUTE / 2);
    // Another person's key has its own budget; the next minute, this one asks again.
    const other = await manualClient(inMemoryServer({ store }, "another-persons-key-0123456789"), true)();
    expect((await other.call()).resultType).toBe("input_required");
    const later = (window + 1) * RATE_WINDOW_MS;
    rateLimitClock.now = () => later;
    expect((await client.call()).resultType).toBe("input_required");
    expect(posts()).toEqual([]);
  });
});

describe("one address's confirmations per minute, over HTTP", () => {
  it(`junk X-API-KEYs from one address share its ${CONFIRMATIONS_PER_ADDRESS}: past that no counter, no mark, nothing sent, and when to try again`, async () => {
    // --oauth without MCP_AUTH_TOKEN: an X-API-KEY is taken unchecked, so each request may bring a new one.
    const inner = memoryStore();
    const marks = new Set<string>();
    const counters = new Set<string>();
    const store: SharedStore = {
      ...inner,
      setIfAbsent: (key, value, ttlMs) => {
        if (key.startsWith(CONFIRMATION_MARK_PREFIX)) marks.add(key);
        return inner.setIfAbsent(key, value, ttlMs);
      },
      increment: (key, ttlMs) => {
        counters.add(key);
        return inner.increment(key, ttlMs);
      },
    };
    const oauth = await startOAuth({
      upstream: { ...settings(), workspaceApiKey: undefined },
      serverOptions: { store },
      httpOverrides: { trustedProxies: ["127.0.0.1"] },
    });
    closers.push(() => oauth.close());
    // One client; each request carries the key and the address (through the trusted proxy) set here.
    const sender = { key: "junk-key-connect", address: "198.51.100.7" };
    const transport = () =>
      new ModernHttpTransport(new URL(oauth.url), {
        fetch: (url, init) => {
          const headers = new Headers(init?.headers);
          headers.set("x-api-key", sender.key);
          headers.set("x-forwarded-for", sender.address);
          return fetch(url, { ...init, headers });
        },
      });
    const client = await manualClient(transport, true)();
    const withKey = (i: number) => {
      sender.key = `junk-key-${i}`;
      return client;
    };
    // A question asked first and answered once the address's budget is spent.
    const held = await withKey(0).call();
    expect(held.resultType).toBe("input_required");
    // Each further junk key asks and accepts: two counts of the address's budget.
    const rounds = (CONFIRMATIONS_PER_ADDRESS - 2) / 2;
    for (let i = 1; i <= rounds; i++) {
      const question = await withKey(i).call();
      const accepted = await client.call({ inputResponses: ACCEPT, requestState: question.requestState });
      expect(accepted.structuredContent).toEqual(COMMENT);
    }
    const last = await withKey(rounds + 1).call();
    expect(last.resultType).toBe("input_required");
    // The budget is spent: the held answer and new keys' questions are refused.
    const late = await withKey(0).call({ inputResponses: ACCEPT, requestState: held.requestState });
    const refused = [late];
    for (let i = rounds + 2; i < rounds + 12; i++) refused.push(await withKey(i).call());
    for (const result of refused) {
      expect(result.isError).toBe(true);
      expect(textOf(result as never)).toBe(
        `tasks_comments: not sent: more than ${CONFIRMATIONS_PER_ADDRESS} confirmations were asked or answered from this client's network address in the last minute. Try again in 60 seconds.`,
      );
    }
    // Marks: one per accepted answer; counters: one per key that asked within the budget, one for the address.
    expect(marks.size).toBe(rounds);
    const keyCounters = [...counters].filter((key) => /^ratelimit:confirm:[^:]+:\d+$/.test(key));
    expect(keyCounters).toHaveLength(rounds + 2);
    expect([...counters].filter((key) => key.startsWith("ratelimit:confirm:address:"))).toEqual([
      `ratelimit:confirm:address:198.51.100.7:${window}`,
    ]);
    expect(posts()).toHaveLength(rounds);
    // Another address has its own budget.
    sender.address = "203.0.113.9";
    expect((await withKey(999).call()).resultType).toBe("input_required");
  });
});
