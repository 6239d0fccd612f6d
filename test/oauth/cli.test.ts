// The built CLI with --oauth: --demo signs in with the sandbox's key (shown on its consent page), and
// the settings it cannot use stop it with exit code 2 and the reason (each case's words in process, the
// process's exit code and output for one of them).
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { SANDBOX_API_KEY } from "../../src/sandbox/index.js";
import { demoHttpServer } from "../every-tool.js";
import { expectCliStopsAsInProcess, settingsOutcomeInProcess } from "../helpers.js";
import { openConsent, signInByHand, startFlow } from "../oauth-harness.js";

// The one spawned bad-setting run goes while the --demo --oauth server is started and signed in to
// (describe.concurrent).
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

const SECRET_FILE_LINE =
  "  --oauth-secret-file <path>      secrets sealing sign-ins, comma-separated: the first seals, all open (secret: the file holding it, or env MCP_OAUTH_SECRET)";
const PUBLIC_URL_LINE =
  "  --public-url <url>              the origin clients reach this server at, for sign-in (default: http://<host>:<port>; env MCP_PUBLIC_URL)";
const TRANSPORT_LINE =
  "  --transport <stdio|http>        how clients connect: stdio or http (default: stdio; env MCP_TRANSPORT)";

/** What the CLI writes to stderr for one problem: the problem, its setting's help line, the pointer to --help. */
const stderrOf = (message: string, helpLine: string) =>
  `agent-workspace-mcp: ${message}\n${helpLine}\n(agent-workspace-mcp --help lists every setting)\n`;

// Each case's words in process, from the CLI's own decision (src/start-decision.ts); one case
// spawned, to hold that the built CLI writes the same, nothing to stdout, and exits 2.
describe.concurrent("settings --oauth cannot use", () => {
  it.each([
    [
      ["--transport", "http", "--oauth"],
      {},
      "--oauth needs a secret: set MCP_OAUTH_SECRET or --oauth-secret-file (random, at least 32 characters)",
      SECRET_FILE_LINE,
    ],
    [
      ["--transport", "http", "--oauth"],
      { MCP_OAUTH_SECRET: "short" },
      "the OAuth secret must be a comma-separated list of secrets of at least 32 characters each",
      SECRET_FILE_LINE,
    ],
    [
      ["--oauth", "--demo"],
      {},
      "--oauth signs in clients of the HTTP transport: add --transport http",
      TRANSPORT_LINE,
    ],
    [
      ["--transport", "http", "--oauth", "--demo", "--public-url", "https://mcp.example.com/team"],
      {},
      '--public-url is the origin clients reach the server at (scheme, host and port), without a path: got "https://mcp.example.com/team"',
      PUBLIC_URL_LINE,
    ],
    [
      ["--transport", "http", "--oauth", "--host", "0.0.0.0", "--allowed-hosts", "mcp.example.com"],
      { MCP_OAUTH_SECRET: "s".repeat(40) },
      "--host 0.0.0.0 is beyond loopback: with --oauth, give --public-url, the origin clients reach this server at",
      PUBLIC_URL_LINE,
    ],
  ])("%j %j stops with exit code 2, saying why (in process)", async (args, env, message, helpLine) => {
    expect(await settingsOutcomeInProcess(args, env as Record<string, string>)).toEqual({
      stops: true,
      stderr: stderrOf(message, helpLine),
    });
  });

  it("the built CLI does as worked out in process, over stdio too: exit code 2, that stderr, nothing on stdout", async () => {
    const args = ["--oauth", "--demo"];
    await expectCliStopsAsInProcess(args);
  });
});
