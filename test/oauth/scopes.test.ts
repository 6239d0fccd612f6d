// Scopes, enforced and stepped up, with SDK v2's client and its own OAuth provider in both eras: a
// sign-in asks for reading only; a write on that grant is refused with 403 insufficient_scope and nothing
// reaches the API; the client asks the person again, and the same client's write then goes through.
// Also what a grant without a scope may still do: its tools are listed, its prompt lookups send nothing.
import {
  Client,
  InsufficientScopeError,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Scope } from "../../src/oauth/grant.js";
import { Keyring, mintAccessToken, openAccessToken } from "../../src/oauth/seal.js";
import { lookupCache } from "../../src/prompts/lookups.js";
import { SANDBOX_API_KEY } from "../../src/sandbox/index.js";
import { ALL_TOOL_NAMES } from "../../src/tools/register.js";
import { logLines } from "../log-capture.js";
import {
  consent,
  MemoryProvider,
  type OAuthHarness,
  rawMcp,
  signInByHand,
  startOAuth,
  TEST_SECRET,
} from "../oauth-harness.js";
import { MODERN } from "../revision-clients.js";

const LEGACY = "2025-11-25";
const REDIRECT = "http://127.0.0.1:53682/callback";
const READ = "workspace:read analytics:read";

const clientOf = (era: string) =>
  era === MODERN
    ? new Client({ name: "scopes", version: "1.0.0" }, { versionNegotiation: { mode: { pin: MODERN } } })
    : new Client({ name: "scopes", version: "1.0.0" }, { supportedProtocolVersions: [LEGACY] });

/** The audit lines of writes logged so far in this test. */
const writeAudits = () =>
  logLines()
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.message === "audit" && line.event === "write");

let server: OAuthHarness;
beforeAll(async () => {
  server = await startOAuth();
});
afterAll(() => server.close());

describe("the scopes a server declares", () => {
  it("in both metadata documents, and the challenge of a request without credentials asks for reading", async () => {
    for (const path of [
      "/.well-known/oauth-protected-resource/mcp",
      "/.well-known/oauth-authorization-server",
    ]) {
      const document = (await (await fetch(`${server.origin}${path}`)).json()) as Record<string, unknown>;
      expect(document.scopes_supported).toEqual(["workspace:read", "workspace:write", "analytics:read"]);
    }
    const refused = await rawMcp(server.url, {});
    expect(refused.headers.get("www-authenticate")).toBe(
      `Bearer scope="${READ}", resource_metadata="${server.origin}/.well-known/oauth-protected-resource/mcp"`,
    );
  });

  it("only those its tools need: a server without tasks_comments declares no workspace:write", async () => {
    const reading = await startOAuth({
      sandbox: server.sandbox,
      tools: new Set([...ALL_TOOL_NAMES].filter((name) => name !== "tasks_comments")),
    });
    try {
      const document = (await (
        await fetch(`${reading.origin}/.well-known/oauth-protected-resource/mcp`)
      ).json()) as Record<string, unknown>;
      expect(document.scopes_supported).toEqual(["workspace:read", "analytics:read"]);
    } finally {
      await reading.close();
    }
  });
});

describe.each([MODERN, LEGACY])("step-up in the %s era", (era) => {
  it("a read grant's write gets 403 insufficient_scope with nothing sent; the client asks again and the write succeeds", async () => {
    const provider = new MemoryProvider(REDIRECT);
    const ids = server.sandbox.ids;
    const choice = {
      workspaceKey: SANDBOX_API_KEY,
      workspaceProject: server.sandbox.workspaceProjectId,
      analyticsProject: server.sandbox.analyticsProjectId,
    };
    const transport = () =>
      new StreamableHTTPClientTransport(new URL(server.url), { authProvider: provider });
    // The first sign-in asks for what the challenge named: reading.
    const first = clientOf(era);
    await expect(first.connect(transport())).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.authorizationUrl?.searchParams.get("scope")).toBe(READ);
    const signedIn = await consent(server.origin, provider.authorizationUrl as URL, choice);
    const signing = transport();
    await signing.finishAuth(signedIn);
    expect((provider.tokens() as { scope?: string }).scope).toBe(READ);

    const client = clientOf(era);
    const used = transport();
    await client.connect(used);
    try {
      // Every served tool is listed, the write among them, so that the client can ask for it.
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain("tasks_comments");
      server.sandbox.requests.length = 0;
      provider.authorizationUrl = undefined;
      const args = { task_id: ids.taskId, body: "after step-up" };
      await expect(client.callTool({ name: "tasks_comments", arguments: args })).rejects.toBeInstanceOf(
        UnauthorizedError,
      );
      expect(server.sandbox.requests).toEqual([]);
      // The client asked again for what it had and what the call needs.
      const asked = provider.authorizationUrl as URL | undefined;
      expect(asked?.searchParams.get("scope")?.split(" ").sort()).toEqual([
        "analytics:read",
        "workspace:read",
        "workspace:write",
      ]);

      const steppedUp = await consent(server.origin, asked as URL, { ...choice, write: true });
      server.sandbox.requests.length = 0; // the consent page's check of the key
      await used.finishAuth(steppedUp);
      expect((provider.tokens() as { scope?: string }).scope?.split(" ").sort()).toEqual([
        "analytics:read",
        "workspace:read",
        "workspace:write",
      ]);
      const result = await client.callTool({ name: "tasks_comments", arguments: args });
      expect(result.isError).toBeFalsy();
      expect(
        server.sandbox.requests.map((r) => [
          r.method,
          r.path,
          r.headers["x-api-key"],
          (r.body as { body?: string } | undefined)?.body,
        ]),
      ).toEqual([["POST", "/api/v1/business/tasks/comments", SANDBOX_API_KEY, "after step-up"]]);

      const audits = writeAudits().map(({ event, tool, target, outcome, reason, client: who, grant }) => ({
        event,
        tool,
        target,
        outcome,
        reason,
        who: typeof who,
        grant: typeof grant,
      }));
      expect(audits).toEqual([
        {
          event: "write",
          tool: "tasks_comments",
          target: ids.taskId,
          outcome: "refused",
          reason: "insufficient_scope",
          who: "string",
          grant: "string",
        },
        {
          event: "write",
          tool: "tasks_comments",
          target: ids.taskId,
          outcome: "ok",
          reason: undefined,
          who: "string",
          grant: "string",
        },
      ]);
      const logged = logLines().join("");
      expect(logged).not.toContain("after step-up");
      expect(logged).not.toContain(SANDBOX_API_KEY);
      expect(logged).not.toContain(provider.accessToken);
    } finally {
      await client.close();
    }
  });
});

/**
 * A token of a real sign-in, narrowed to `scopes`: what a person who granted less would hold (its grant
 * exists, so the server honours it).
 */
async function narrowed(scopes: Scope[]): Promise<string> {
  const { tokens } = await signInByHand(server.origin, { workspaceKey: SANDBOX_API_KEY });
  const keys = new Keyring([TEST_SECRET]);
  const audience = { issuer: server.origin, resource: `${server.origin}/mcp` };
  const claims = await openAccessToken(keys, audience, tokens.access_token);
  const { grantId, clientId, credentials } = claims;
  return (
    await mintAccessToken(keys, audience, { grantId, clientId, credentials: { ...credentials, scopes } }, 600)
  ).token;
}

describe.each([MODERN, LEGACY])("a grant without analytics:read, %s", (era) => {
  it("lists every tool; an analytics call or prompt gets 403 insufficient_scope, its completions send nothing", async () => {
    const token = await narrowed(["workspace:read"]);
    const client = clientOf(era);
    const headers = { authorization: `Bearer ${token}` };
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers } }),
    );
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual([...ALL_TOOL_NAMES]);
      lookupCache.clear();
      server.sandbox.requests.length = 0;
      const refused = client.callTool({ name: "geo_projects", arguments: {} });
      await expect(refused).rejects.toBeInstanceOf(InsufficientScopeError);
      await expect(refused).rejects.toMatchObject({ requiredScope: "workspace:read analytics:read" });
      const prompt = client.getPrompt({
        name: "visibility_report",
        arguments: { project: "Acme", period: "2025-12" },
      });
      await expect(prompt).rejects.toBeInstanceOf(InsufficientScopeError);
      const completion = await client.complete({
        ref: { type: "ref/prompt", name: "visibility_report" },
        argument: { name: "project", value: "" },
      });
      expect(completion.completion.values).toEqual([]);
      expect(server.sandbox.requests).toEqual([]);
      // What the grant has still works: the workspace's prompt completes through whoami.
      const triage = await client.complete({
        ref: { type: "ref/prompt", name: "task_triage" },
        argument: { name: "project", value: "" },
      });
      expect(triage.completion.values).toEqual(["Growth Marketing", "Platform", "Inbox"]);
      expect(server.sandbox.requests.map((r) => [r.path, r.headers["x-api-key"]])).toEqual([
        ["/api/v1/business/whoami", SANDBOX_API_KEY],
      ]);
    } finally {
      await client.close();
    }
  });
});
