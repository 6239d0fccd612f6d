// An upstream that echoes the caller's X-API-KEY in a 200 body does not hand the key to the assistant:
// success results are scrubbed as errors are, for the environment's key and for a user's X-API-KEY.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { setLogLevel } from "../../src/log.js";
import {
  type AnyCallToolResult,
  type CannedResponse,
  type InMemoryHarness,
  type RecordedRequest,
  type Recorder,
  startInMemory,
  startRecorder,
} from "../helpers.js";
import { callTool, type HttpHarness, startHttp } from "../http-helpers.js";

const ENV_KEY = "env-secret-key-0123456789";
const USER_KEY = "user-secret/key+4567==";

/**
 * What each echo answers, as JSON text written by hand (escapes included), given the key it received.
 * A value that is the placeholder alone ends in a bracket on a line it opens: the sanitizer makes that
 * bracket inert (joined by `: `, it would open a link definition), and says so.
 */
const ALONE = "[redacted\uFF3D";
const ECHOES: [string, (key: string) => string, unknown][] = [
  [
    "in values at any depth",
    (key) => JSON.stringify({ echoed: key, nested: { list: [`Bearer ${key}`, 1] } }),
    {
      echoed: ALONE,
      nested: { list: ["Bearer [redacted]", 1] },
      sanitized: "Markdown/HTML made inert in 1 place in echoed",
    },
  ],
  [
    "as an object key",
    (key) => JSON.stringify({ [key]: true, other: 2 }),
    { [ALONE]: true, other: 2, sanitized: `Markdown/HTML made inert in 1 place in ${ALONE} (key)` },
  ],
  [
    "spelled with \\u escapes and \\/",
    (key) =>
      `{"echoed":"${[...key].map((char) => (char === "/" ? "\\/" : `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`)).join("")}"}`,
    { echoed: ALONE, sanitized: "Markdown/HTML made inert in 1 place in echoed" },
  ],
  [
    "in a top-level list",
    (key) => JSON.stringify([key]),
    { items: [ALONE], sanitized: "Markdown/HTML made inert in 1 place in items[0]" },
  ],
];

let upstream: Recorder;
let echo: (key: string) => string = () => "{}";

beforeAll(async () => {
  setLogLevel("error"); // the server's request log is not this test's output
  upstream = await startRecorder(
    (request: RecordedRequest): CannedResponse => ({ body: echo(String(request.headers["x-api-key"])) }),
  );
});
afterAll(async () => {
  await upstream.close();
  setLogLevel("info");
});
afterEach(() => {
  upstream.requests.length = 0;
});

function expectScrubbed(result: AnyCallToolResult, key: string, expected: unknown): void {
  expect(result.isError).toBeUndefined();
  expect(result.structuredContent).toEqual(expected);
  expect(result.content).toEqual([{ type: "text", text: JSON.stringify(expected) }]);
  expect(JSON.stringify(result)).not.toContain(key);
}

describe("the environment's key", () => {
  let mcp: InMemoryHarness;
  beforeAll(async () => {
    mcp = await startInMemory({ workspaceBaseUrl: upstream.url, workspaceApiKey: ENV_KEY });
  });
  afterAll(async () => {
    await mcp.close();
  });

  it.each(ECHOES)("echoed %s is replaced by [redacted]", async (_name, body, expected) => {
    echo = body;
    expectScrubbed(await mcp.call("whoami"), ENV_KEY, expected);
    expect(upstream.requests.map((request) => request.headers["x-api-key"])).toEqual([ENV_KEY]);
  });

  it("a body without the key is passed on as the upstream wrote it", async () => {
    echo = () => '{"projects": [{"id": "p1", "name": "Café"}]}';
    const result = await mcp.call("whoami");
    expect(result.structuredContent).toEqual({ projects: [{ id: "p1", name: "Café" }] });
    expect(result.content).toEqual([{ type: "text", text: '{"projects": [{"id": "p1", "name": "Café"}]}' }]);
  });

  it("a body without the key whose text has JSON escapes is passed on as the JSON of what was checked", async () => {
    // An escape may spell a hidden character: the sanitizer reads the parsed body, and the text is its JSON.
    echo = () => '{"projects": [{"id": "p1", "name": "Caf\\u00e9"}]}';
    const result = await mcp.call("whoami");
    expect(result.structuredContent).toEqual({ projects: [{ id: "p1", name: "Café" }] });
    expect(result.content).toEqual([{ type: "text", text: '{"projects":[{"id":"p1","name":"Café"}]}' }]);
  });
});

describe("a user's X-API-KEY over HTTP", () => {
  let harness: HttpHarness;
  beforeAll(async () => {
    harness = await startHttp([], { workspaceBaseUrl: upstream.url, analyticsBaseUrl: upstream.url });
  });
  afterAll(async () => {
    await harness.close();
  });

  it.each(ECHOES)(
    "echoed %s is replaced by [redacted], for workspace and analytics tools",
    async (_name, body, expected) => {
      echo = body;
      const client = await harness.connect({ "X-API-KEY": USER_KEY });
      try {
        expectScrubbed(await callTool(client, "whoami"), USER_KEY, expected);
        expectScrubbed(await callTool(client, "geo_projects"), USER_KEY, expected);
      } finally {
        await client.close();
      }
      expect(upstream.requests.map((request) => request.headers["x-api-key"])).toEqual([USER_KEY, USER_KEY]);
    },
  );
});
