// The upstream client on its own, over real sockets: what an attempt does when it is cancelled before
// or during an answer, how a body in pieces is read, and that the in-flight cap follows the key, not
// the client object.
import type { ServerResponse } from "node:http";
import { Agent } from "undici";
import AgentFromItsFile from "undici/lib/dispatcher/agent.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createDispatcher } from "../../src/clients/http.js";
import { createUpstreams } from "../../src/clients/index.js";
import { workspaceEndpoints } from "../../src/tools/workspace.js";
import { type FaultRequest, type FaultUpstream, faults, startFaultUpstream } from "../fault-upstream.js";
import { TEST_LIMITS } from "../helpers.js";

const KEY = "client-key-0123456789";
const whoami = workspaceEndpoints.find((endpoint) => endpoint.name === "whoami")!;

let upstream: FaultUpstream;
let dispatcher: Agent;
beforeEach(async () => {
  upstream = await startFaultUpstream();
  dispatcher = createDispatcher(TEST_LIMITS);
});
afterEach(async () => {
  await dispatcher.close();
  await upstream.close();
});

const settingsFor = (apiKey: string) => ({
  ...TEST_LIMITS,
  workspaceBaseUrl: upstream.url,
  workspaceApiKey: apiKey,
});

describe("a cancelled attempt", () => {
  it("mid-body: rejects with the caller's reason and closes the socket before the body ends", async () => {
    upstream.answerWith(faults.drip(20));
    const arrived = upstream.nextRequest();
    const controller = new AbortController();
    const call = createUpstreams(settingsFor(KEY), dispatcher).call(
      whoami,
      {},
      { signal: controller.signal },
    );
    const request = await arrived;
    controller.abort("the user moved on");
    await expect(call).rejects.toBe("the user moved on");
    await request.socketClosed;
    expect(request.answered).toBe(false);
    expect(upstream.requests).toHaveLength(1);
  });

  it("while waiting for a connection: rejects at once, and the request is never sent", async () => {
    // One connection, held by a first call: the second waits in the pool, not yet started.
    const single = new Agent({ connections: 1 });
    const held: ServerResponse[] = [];
    upstream.answerWith((res) => held.push(res));
    const upstreams = createUpstreams(settingsFor(KEY), single);
    try {
      const arrived = upstream.nextRequest();
      const first = upstreams.call(whoami, {}, {});
      await arrived;
      const controller = new AbortController();
      const second = upstreams.call(whoami, {}, { signal: controller.signal });
      controller.abort("no longer needed");
      await expect(second).rejects.toBe("no longer needed");
      faults.ok({ projects: [] })(held[0]!, upstream.requests[0]!, 0);
      expect((await first).value).toEqual({ projects: [] });
      await single.close(); // waits for whatever is still queued
      expect(upstream.requests).toHaveLength(1);
    } finally {
      await single.destroy();
    }
  });
});

describe("an answer's body", () => {
  it("sent in pieces that split a character is decoded whole", async () => {
    const name = "Ünïcödé 東京 🚀";
    const bytes = Buffer.from(JSON.stringify({ projects: [{ id: "p1", name }] }));
    const split = bytes.indexOf(Buffer.from("東")) + 1; // inside the three bytes of 東
    upstream.answerWith((res) => {
      res.writeHead(200, { "content-type": "application/json" });
      // Without a length the answer is chunked: each write reaches the client as its own piece.
      res.write(bytes.subarray(0, split), () => res.end(bytes.subarray(split)));
    });
    const answer = await createUpstreams(settingsFor(KEY), dispatcher).call(whoami, {}, {});
    expect(answer.value).toEqual({ projects: [{ id: "p1", name }] });
  });
});

describe("the in-flight cap", () => {
  it("is shared by every client of the same key, and not by a client of another key", async () => {
    const limits = { ...TEST_LIMITS, concurrency: 2 };
    const held: [ServerResponse, FaultRequest][] = [];
    upstream.answerWith((res, request) => {
      if (request.method === "GET") held.push([res, request]);
      else faults.ok({ items: [] })(res, request, 0);
    });
    const settings = { ...settingsFor(KEY), ...limits };
    // Two clients, as two HTTP sessions of one user would have.
    const [first, second] = [
      createUpstreams({ ...settings }, dispatcher),
      createUpstreams({ ...settings }, dispatcher),
    ];
    const twoArrived = Promise.all([upstream.nextRequest(), upstream.nextRequest()]);
    const calls = [first.call(whoami, {}, {}), first.call(whoami, {}, {}), second.call(whoami, {}, {})];
    await twoArrived;
    const other = createUpstreams({ ...settingsFor("another-key-0123456789"), ...limits }, dispatcher);
    const tasksQuery = workspaceEndpoints.find((endpoint) => endpoint.name === "tasks_query")!;
    expect((await other.call(tasksQuery, { project_id: "p1", view: "list" }, {})).value).toEqual({
      items: [],
    });
    expect(upstream.requests.map((request) => request.method)).toEqual(["GET", "GET", "POST"]);
    const third = upstream.nextRequest();
    for (const [res, request] of held.splice(0)) faults.ok({ projects: [] })(res, request, 0);
    await third;
    for (const [res, request] of held.splice(0)) faults.ok({ projects: [] })(res, request, 0);
    expect((await Promise.all(calls)).map((answer) => answer.value)).toEqual(Array(3).fill({ projects: [] }));
    expect(upstream.requests).toHaveLength(4);
  });
});

describe("the connection pool", () => {
  it("is undici's own Agent, imported from its file alone (and so honours its options)", async () => {
    expect(AgentFromItsFile).toBe(Agent);
    const dispatcher = createDispatcher({ maxResponseBytes: 1000 });
    expect(dispatcher).toBeInstanceOf(Agent);
    await dispatcher.close();
  });
});
