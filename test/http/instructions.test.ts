// The server's instructions hold no text from a user or an API: over HTTP, whatever a user's headers
// carry (key, project, tool selection), the instructions are the fixed guides of the APIs the user's
// tools reach, and nothing else.
import { afterEach, describe, expect, it } from "vitest";
import { ATTACKS } from "../../src/sandbox/hostile-text.js";
import { ANALYTICS_GUIDE, DATA_GUIDE, WORKSPACE_GUIDE } from "../../src/server.js";
import { type McpHarness, type Recorder, startMcp, startRecorder } from "../helpers.js";

let upstream: Recorder | undefined;
let mcp: McpHarness | undefined;
afterEach(async () => {
  await mcp?.close();
  await upstream?.close();
  mcp = undefined;
  upstream = undefined;
});

describe("instructions over HTTP", () => {
  it.each([
    [{}, [WORKSPACE_GUIDE, ANALYTICS_GUIDE, DATA_GUIDE]],
    [{ "x-mcp-tools": "whoami,tasks_query" }, [WORKSPACE_GUIDE, DATA_GUIDE]],
    [{ "x-mcp-toolsets": "analytics" }, [ANALYTICS_GUIDE, DATA_GUIDE]],
  ] as const)("with headers %j: the fixed guides only", async (selection, guides) => {
    // A user whose key and project are attacks in themselves: neither reaches the instructions.
    upstream = await startRecorder(() => ({ body: { projects: [{ id: "p", name: ATTACKS.htmlTag }] } }));
    mcp = await startMcp(
      { workspaceBaseUrl: upstream.url, analyticsBaseUrl: upstream.url },
      {
        headers: {
          "X-API-KEY": `user-key${ATTACKS.image}`.replace(/[^\x21-\x7e]/g, ""),
          "X-Project-Id": "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
          ...selection,
        },
      },
    );
    expect(mcp.client.getInstructions()).toBe(guides.join("\n"));
  });
});
