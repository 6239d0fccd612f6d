// Sign-in end to end: SDK v2's client runs its own OAuth flow (its OAuthClientProvider) against the
// server, registering by DCR or naming a client metadata document, in both protocol eras; the test
// answers the consent page over HTTP as a browser would; then every tool is called with the token
// against the sandbox, which records that each call carried the person's key.
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SANDBOX_API_KEY } from "../../src/sandbox/index.js";
import { exerciseEveryTool } from "../every-tool.js";
import {
  consent,
  MemoryProvider,
  type OAuthHarness,
  startMetadataHost,
  startOAuth,
} from "../oauth-harness.js";

const MODERN = "2026-07-28";
const LEGACY = "2025-11-25";
const REDIRECT = "http://127.0.0.1:53682/callback";

const clientOf = (era: string) =>
  era === MODERN
    ? new Client({ name: "oauth-test", version: "1.0.0" }, { versionNegotiation: { mode: { pin: MODERN } } })
    : new Client({ name: "oauth-test", version: "1.0.0" }, { supportedProtocolVersions: [LEGACY] });

/** Connects; the first attempt sends the person to the consent page, which the test answers. */
async function signIn(server: OAuthHarness, provider: MemoryProvider, era: string): Promise<Client> {
  const first = clientOf(era);
  const unauthorized = await first
    .connect(new StreamableHTTPClientTransport(new URL(server.url), { authProvider: provider }))
    .then(
      () => undefined,
      (error: unknown) => error,
    );
  expect(unauthorized).toBeInstanceOf(UnauthorizedError);
  const authorizationUrl = provider.authorizationUrl as URL;
  expect(authorizationUrl.origin).toBe(server.origin);
  const callback = await consent(server.origin, authorizationUrl, {
    workspaceKey: SANDBOX_API_KEY,
    workspaceProject: server.sandbox.workspaceProjectId,
    analyticsProject: server.sandbox.analyticsProjectId,
    write: true,
  });
  expect(callback.get("state")).toBe(authorizationUrl.searchParams.get("state"));
  expect(callback.get("iss")).toBe(server.origin);
  const transport = new StreamableHTTPClientTransport(new URL(server.url), { authProvider: provider });
  await transport.finishAuth(callback);
  const client = clientOf(era);
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { authProvider: provider }));
  return client;
}

describe.each([MODERN, LEGACY])("sign-in in the %s era", (era) => {
  let server: OAuthHarness;
  beforeAll(async () => {
    server = await startOAuth();
  });
  afterAll(() => server.close());

  it("by registration (DCR): the SDK client signs in, then calls every tool with the person's key", async () => {
    const provider = new MemoryProvider(REDIRECT);
    const client = await signIn(server, provider, era);
    try {
      expect(provider.authorizationUrl?.searchParams.get("client_id")).not.toMatch(/^https:/);
      server.sandbox.requests.length = 0;
      await exerciseEveryTool(client, server.sandbox);
      expect(server.sandbox.requests.length).toBeGreaterThanOrEqual(14);
      for (const request of server.sandbox.requests)
        expect(request.headers["x-api-key"]).toBe(SANDBOX_API_KEY);
      expect(provider.accessToken).not.toContain(SANDBOX_API_KEY);
    } finally {
      await client.close();
    }
  });

  it("by client metadata document (CIMD): the client_id is the document's https URL", async () => {
    let fetched = 0;
    const host = await startMetadataHost((path, res, origin) => {
      fetched += 1;
      res.writeHead(200, { "content-type": "application/json", "cache-control": "max-age=60" });
      res.end(
        JSON.stringify({
          client_id: `${origin}${path}`,
          client_name: "Metadata assistant",
          redirect_uris: [REDIRECT],
          token_endpoint_auth_method: "none",
        }),
      );
    });
    try {
      const provider = new MemoryProvider(REDIRECT, `${host.origin}/client.json`);
      const client = await signIn(server, provider, era);
      try {
        expect(provider.authorizationUrl?.searchParams.get("client_id")).toBe(`${host.origin}/client.json`);
        expect(fetched).toBe(1); // the document is cached as its Cache-Control allows
        server.sandbox.requests.length = 0;
        await exerciseEveryTool(client, server.sandbox);
        for (const request of server.sandbox.requests)
          expect(request.headers["x-api-key"]).toBe(SANDBOX_API_KEY);
      } finally {
        await client.close();
      }
    } finally {
      await host.close();
    }
  });
});
