// The built CLI with --oauth: --demo signs in with the sandbox's key (shown on its consent page), and
// the settings it cannot use stop it with exit code 2 and the reason.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { SANDBOX_API_KEY } from "../../src/sandbox/index.js";
import { demoHttpServer } from "../every-tool.js";
import { runCli } from "../helpers.js";
import { openConsent, signInByHand, startFlow } from "../oauth-harness.js";

// Every test has processes of its own: the bad-setting runs, one after the other (it.sequential), go
// while the --demo --oauth server is started and signed in to (describe.concurrent).
describe.concurrent("--demo --oauth", () => {
  const server = demoHttpServer(["--oauth"]);

  it("shows the sandbox's key on the consent page, signs in with it, and serves the person's calls", async () => {
    const origin = server.url().origin;
    const page = await openConsent((await startFlow(origin)).authorizationUrl);
    expect(page.html).toContain(`This is a demo server: its key is <code>${SANDBOX_API_KEY}</code>.`);
    const { tokens } = await signInByHand(origin, { workspaceKey: SANDBOX_API_KEY });
    const client = new Client({ name: "demo-oauth", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(server.url(), {
        requestInit: { headers: { authorization: `Bearer ${tokens.access_token}` } },
      }),
    );
    try {
      const result = await client.callTool({ name: "whoami", arguments: {} });
      expect(result.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    const unsigned = await fetch(server.url(), { method: "POST", body: "{}" });
    expect(unsigned.status).toBe(401);
  });
});

describe.concurrent("settings --oauth cannot use", () => {
  it.sequential.each([
    [
      ["--transport", "http", "--oauth"],
      {},
      "--oauth needs a secret: set MCP_OAUTH_SECRET or --oauth-secret-file (random, at least 32 characters)",
    ],
    [
      ["--transport", "http", "--oauth"],
      { MCP_OAUTH_SECRET: "short" },
      "the OAuth secret must be a comma-separated list of secrets of at least 32 characters each",
    ],
    [["--oauth", "--demo"], {}, "--oauth signs in clients of the HTTP transport: add --transport http"],
    [
      ["--transport", "http", "--oauth", "--demo", "--public-url", "https://mcp.example.com/team"],
      {},
      '--public-url is the origin clients reach the server at (scheme, host and port), without a path: got "https://mcp.example.com/team"',
    ],
    [
      ["--transport", "http", "--oauth", "--host", "0.0.0.0", "--allowed-hosts", "mcp.example.com"],
      { MCP_OAUTH_SECRET: "s".repeat(40) },
      "--host 0.0.0.0 is beyond loopback: with --oauth, give --public-url, the origin clients reach this server at",
    ],
  ])("%j stops with exit code 2", async (args, env, message) => {
    const { code, stderr } = await runCli(args, env as Record<string, string>);
    expect(code).toBe(2);
    expect(stderr.split("\n")[0]).toBe(`agent-workspace-mcp: ${message}`);
  });
});
