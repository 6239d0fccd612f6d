// Discovery, the challenge of an unsigned request, the header paths beside sign-in, and the consent
// page as a browser meets it: what it shows, the key checked against the APIs, and the choices made
// there (default projects, write permission) reaching the calls made with the token.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { SANDBOX_API_KEY } from "../../src/sandbox/index.js";
import { ALL_TOOL_NAMES } from "../../src/tools/register.js";
import { logLines } from "../log-capture.js";
import {
  fieldOf,
  type OAuthHarness,
  openConsent,
  postConsent,
  rawMcp,
  signInByHand,
  startFlow,
  startOAuth,
} from "../oauth-harness.js";

let server: OAuthHarness;
beforeAll(async () => {
  server = await startOAuth();
});
afterAll(() => server.close());
// No key, right or wrong, reaches a log line.
afterEach(() => {
  const logged = logLines().join("");
  expect(logged).not.toContain(SANDBOX_API_KEY);
  expect(logged).not.toContain("not-a-key");
});

async function connectWith(headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: "token-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers } }));
  return client;
}

describe("discovery", () => {
  it("serves the protected resource metadata at the root and /mcp-suffixed paths", async () => {
    for (const path of [
      "/.well-known/oauth-protected-resource",
      "/.well-known/oauth-protected-resource/mcp",
    ]) {
      const response = await fetch(`${server.origin}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get("access-control-allow-origin")).toBe("*");
      expect(await response.json()).toEqual({
        resource: `${server.origin}/mcp`,
        authorization_servers: [server.origin],
        bearer_methods_supported: ["header"],
        scopes_supported: ["workspace:read", "workspace:write", "analytics:read"],
        resource_name: "agent-workspace-mcp",
      });
    }
  });

  it("serves the authorization server metadata wherever clients probe for it", async () => {
    const expected = {
      issuer: server.origin,
      authorization_endpoint: `${server.origin}/authorize`,
      token_endpoint: `${server.origin}/token`,
      registration_endpoint: `${server.origin}/register`,
      revocation_endpoint: `${server.origin}/revoke`,
      response_types_supported: ["code"],
      response_modes_supported: ["query"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      code_challenge_methods_supported: ["S256"],
      scopes_supported: ["workspace:read", "workspace:write", "analytics:read"],
      token_endpoint_auth_methods_supported: ["none", "client_secret_post", "client_secret_basic"],
      revocation_endpoint_auth_methods_supported: ["none", "client_secret_post", "client_secret_basic"],
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
    };
    for (const path of [
      "/.well-known/oauth-authorization-server",
      "/.well-known/oauth-authorization-server/mcp",
      "/.well-known/openid-configuration",
      "/.well-known/openid-configuration/mcp",
      "/mcp/.well-known/openid-configuration",
    ]) {
      const response = await fetch(`${server.origin}${path}`);
      expect([path, response.status]).toEqual([path, 200]);
      expect(await response.json()).toEqual(expected);
    }
  });

  it("answers a request without credentials 401 with the challenge naming the metadata", async () => {
    const answer = await rawMcp(server.url, {});
    expect(answer.status).toBe(401);
    expect(answer.headers.get("www-authenticate")).toBe(
      `Bearer scope="workspace:read analytics:read", resource_metadata="${server.origin}/.well-known/oauth-protected-resource/mcp"`,
    );
    expect(JSON.parse(answer.text)).toEqual({
      error: "invalid_token",
      error_description: "sign in: this server takes an OAuth access token (see its resource metadata)",
    });
  });
});

describe("beside sign-in", () => {
  it("a request with X-API-KEY works as without --oauth, with that key", async () => {
    const client = await connectWith({ "x-api-key": SANDBOX_API_KEY });
    try {
      server.sandbox.requests.length = 0;
      const result = await client.callTool({ name: "whoami", arguments: {} });
      expect(result.isError).toBeFalsy();
      expect(server.sandbox.requests.map((r) => r.headers["x-api-key"])).toEqual([SANDBOX_API_KEY]);
    } finally {
      await client.close();
    }
  });

  it("the shared bearer token still admits a request when one is configured", async () => {
    const shared = await startOAuth({ httpOverrides: { authToken: "shared-token-of-the-team" } });
    try {
      const admitted = await rawMcp(shared.url, { authorization: "Bearer shared-token-of-the-team" });
      expect(admitted.status).toBe(200);
      const keyOnly = await rawMcp(shared.url, { "x-api-key": SANDBOX_API_KEY });
      expect(keyOnly.status).toBe(401);
      expect(keyOnly.headers.get("www-authenticate")).toContain("resource_metadata=");
    } finally {
      await shared.close();
    }
  });
});

describe("the consent page", () => {
  it("is self-contained, unframeable, uncached, and names the client (sanitized) and where it returns", async () => {
    const flow = await startFlow(server.origin, {
      name: "Evil<script>alert(1)</script>\u200b [click](https://x.example)",
    });
    const page = await openConsent(flow.authorizationUrl);
    expect(page.status).toBe(200);
    const csp = page.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("form-action 'self' http://127.0.0.1:*");
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    expect(page.headers.get("cache-control")).toBe("no-store");
    expect(page.cookie).toMatch(/^oauth_csrf_[\w-]+=[\w-]{43}$/);
    // No outside asset and no script: the client's words are text, never markup.
    expect(page.html).not.toMatch(/<script|\bsrc=|<link|<a |url\(|@import/i);
    expect(page.html).not.toContain("\u200b");
    // The page leads with what was checked (where it returns), then the name as the client's claim,
    // hidden characters removed and markup escaped: it shows as text.
    expect(page.html).toContain(
      '<h1 id="title">An application returning to <strong>127.0.0.1:53682</strong> asks to use your workspace</h1>',
    );
    expect(page.html).toContain(
      "It calls itself &#8220;Evil&#60;script&#62;alert(1)&#60;/script&#62; [click](https://x.example)&#8221;. That name is its own claim",
    );
    expect(page.html).toContain('<input type="password" id="workspace_key" name="workspace_key"');
    expect(page.html).toContain('<input type="password" id="analytics_key" name="analytics_key"');
    expect(page.html).toContain('<label for="workspace_key">');
    expect(page.html).toContain("prefers-color-scheme:dark");
  });

  it("says a refused key on the page and issues no code; the right key then goes on to the choices", async () => {
    const flow = await startFlow(server.origin);
    const page = await openConsent(flow.authorizationUrl);
    const refused = await postConsent(server.origin, page, { step: "key", workspace_key: "not-a-key" });
    expect(refused.status).toBe(400);
    expect(refused.headers.get("location")).toBeNull();
    const refusedHtml = await refused.text();
    expect(refusedHtml).toContain('role="alert"');
    expect(refusedHtml).toContain("The workspace API refused this key (401). Check it and try again.");
    expect(refusedHtml).not.toContain("not-a-key");
    const accepted = await postConsent(server.origin, page, { step: "key", workspace_key: SANDBOX_API_KEY });
    expect(accepted.status).toBe(200);
    const choices = await accepted.text();
    expect(choices).toContain(`<option value="${server.sandbox.workspaceProjectId}">`);
    expect(choices).toContain(`<option value="${server.sandbox.analyticsProjectId}">`);
    for (const scope of ["workspace:read", "workspace:write", "analytics:read"])
      expect(choices).toContain(`<input type="checkbox" name="${scope}" value="1" checked>`);
    expect(choices).not.toContain(SANDBOX_API_KEY);
  });

  it("refuses a post without its CSRF token, or without the page's cookie, and issues no code", async () => {
    const flow = await startFlow(server.origin);
    const page = await openConsent(flow.authorizationUrl);
    for (const forged of [{ csrf: "" }, { csrf: "x".repeat(43) }, { cookie: "" }]) {
      const answer = await postConsent(
        server.origin,
        page,
        { step: "key", workspace_key: SANDBOX_API_KEY },
        forged,
      );
      expect(answer.status).toBe(403);
      expect(answer.headers.get("location")).toBeNull();
      expect(await answer.text()).toContain("security token is missing or wrong");
    }
    // The page itself still works: nothing was consumed by the forgeries.
    const real = await postConsent(server.origin, page, { step: "key", workspace_key: SANDBOX_API_KEY });
    expect(real.status).toBe(200);
  });

  it("refuses a form posted from another origin, whatever it carries", async () => {
    const flow = await startFlow(server.origin);
    const page = await openConsent(flow.authorizationUrl);
    const answer = await fetch(`${server.origin}/authorize`, {
      method: "POST",
      redirect: "manual",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        cookie: page.cookie,
        origin: "https://evil.example",
      },
      body: new URLSearchParams({
        request: fieldOf(page.html, "request"),
        csrf: fieldOf(page.html, "csrf"),
        step: "key",
        workspace_key: SANDBOX_API_KEY,
      }),
    });
    expect([answer.status, answer.headers.get("content-type"), answer.headers.get("location")]).toEqual([
      403,
      "text/html; charset=utf-8",
      null,
    ]);
    expect(await answer.text()).toContain("security token is missing or wrong");
  });

  it("sends a denial back to the client as access_denied, with state and iss", async () => {
    const flow = await startFlow(server.origin);
    const page = await openConsent(flow.authorizationUrl);
    const denied = await postConsent(server.origin, page, { step: "deny" });
    expect(denied.status).toBe(303);
    const back = new URL(denied.headers.get("location") ?? "");
    expect(`${back.origin}${back.pathname}`).toBe(flow.redirectUri);
    expect(Object.fromEntries(back.searchParams)).toEqual({
      error: "access_denied",
      error_description: "the person denied the request",
      state: "state-1",
      iss: server.origin,
    });
  });

  it("without write permission, the grant still lists every tool (a write gets 403 insufficient_scope)", async () => {
    const { tokens } = await signInByHand(server.origin, { workspaceKey: SANDBOX_API_KEY });
    const client = await connectWith({ authorization: `Bearer ${tokens.access_token}` });
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual([...ALL_TOOL_NAMES]);
    } finally {
      await client.close();
    }
  });

  it("with --stateless, every request stands alone and still carries its grant's key", async () => {
    const stateless = await startOAuth({ argv: ["--stateless"] });
    try {
      const { tokens } = await signInByHand(stateless.origin, { workspaceKey: SANDBOX_API_KEY });
      const client = new Client({ name: "stateless-token", version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(stateless.url), {
          requestInit: { headers: { authorization: `Bearer ${tokens.access_token}` } },
        }),
      );
      try {
        stateless.sandbox.requests.length = 0;
        expect((await client.callTool({ name: "whoami", arguments: {} })).isError).toBeFalsy();
        expect(stateless.sandbox.requests.map((r) => r.headers["x-api-key"])).toEqual([SANDBOX_API_KEY]);
      } finally {
        await client.close();
      }
    } finally {
      await stateless.close();
    }
  });

  it("the projects chosen are the grant's defaults, sent with its calls", async () => {
    const { tokens } = await signInByHand(server.origin, {
      workspaceKey: SANDBOX_API_KEY,
      workspaceProject: server.sandbox.workspaceProjectId,
      write: true,
    });
    const client = await connectWith({ authorization: `Bearer ${tokens.access_token}` });
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain("tasks_comments");
      server.sandbox.requests.length = 0;
      await client.callTool({ name: "tasks_query", arguments: { view: "list" } });
      expect(server.sandbox.requests.map((r) => [r.headers["x-api-key"], r.headers["x-project-id"]])).toEqual(
        [[SANDBOX_API_KEY, server.sandbox.workspaceProjectId]],
      );
    } finally {
      await client.close();
    }
  });

  it("never lets an unknown page id or field through", async () => {
    const answer = await fetch(`${server.origin}/authorize`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "request=..%2F..&csrf=x&step=allow",
    });
    expect(answer.status).toBe(403);
    expect(fieldOfOrNone(await answer.text())).toBeUndefined();
  });
});

function fieldOfOrNone(html: string): string | undefined {
  try {
    return fieldOf(html, "request");
  } catch {
    return undefined;
  }
}
