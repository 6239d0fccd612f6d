// Attacks on sign-in, each answered with the OAuth error JSON (or, before the client's redirect URI is
// trusted, an error page that redirects nowhere), the server answering on afterwards. No log line of
// any test here holds a key.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { GrantCredentials } from "../../src/oauth/grant.js";
import { METADATA_FETCH_FAILED, metadataClock } from "../../src/oauth/metadata-documents.js";
import { Keyring, mintAccessToken, openAccessToken } from "../../src/oauth/seal.js";
import { SANDBOX_API_KEY, SANDBOX_SINGLE_PROJECT_API_KEY } from "../../src/sandbox/index.js";
import { logLines } from "../log-capture.js";
import {
  consent,
  type OAuthHarness,
  openConsent,
  postForm,
  rawMcp,
  signInByHand,
  startFlow,
  startMetadataHost,
  startOAuth,
  TEST_SECRET,
} from "../oauth-harness.js";

// The file's server; the few a test starts beside it (other settings, a second replica) serve its sandbox.
let server: OAuthHarness;
beforeAll(async () => {
  server = await startOAuth();
});
afterAll(() => server.close());
afterEach(() => {
  expect(logLines().join("")).not.toContain(SANDBOX_API_KEY);
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const credentials: GrantCredentials = {
  workspaceApiKey: SANDBOX_API_KEY,
  scopes: ["workspace:read", "analytics:read"],
};

/** /mcp refuses the token: 401, the OAuth error JSON, and the challenge with the error and the metadata. */
async function expectRefused(token: string, description: string): Promise<void> {
  const answer = await rawMcp(server.url, bearer(token));
  expect(answer.status).toBe(401);
  expect(JSON.parse(answer.text)).toEqual({ error: "invalid_token", error_description: description });
  expect(answer.headers.get("www-authenticate")).toBe(
    `Bearer error="invalid_token", error_description="${description}", scope="workspace:read analytics:read", resource_metadata="${server.origin}/.well-known/oauth-protected-resource/mcp"`,
  );
  expect(answer.text).not.toContain(SANDBOX_API_KEY);
}

describe("access tokens", () => {
  const keys = new Keyring([TEST_SECRET]);
  const audience = () => ({ issuer: server.origin, resource: `${server.origin}/mcp` });
  const claims = { grantId: "00000000-0000-4000-8000-000000000000", clientId: "c", credentials };

  it("refuses a token issued for another resource", async () => {
    const { token } = await mintAccessToken(
      keys,
      { ...audience(), resource: "https://other.example/mcp" },
      claims,
      600,
    );
    await expectRefused(token, "the access token was issued for another resource");
  });

  it("refuses an expired token", async () => {
    const { token } = await mintAccessToken(keys, audience(), claims, -60);
    await expectRefused(token, "the access token has expired");
  });

  it("refuses a tampered token and one sealed under another secret", async () => {
    const { token } = await mintAccessToken(keys, audience(), claims, 600);
    const parts = token.split(".");
    const payload = parts[3] as string;
    parts[3] = `${payload[0] === "A" ? "B" : "A"}${payload.slice(1)}`;
    await expectRefused(parts.join("."), "the access token is not one this server issued, or was altered");
    await expectRefused("not.a.token", "the access token is not one this server issued, or was altered");
    const stranger = new Keyring(["another-secret-of-thirty-two-characters!!"]);
    const { token: foreign } = await mintAccessToken(stranger, audience(), claims, 600);
    await expectRefused(foreign, "the access token was sealed under a secret this server no longer holds");
  });

  it("refuses a well-formed token whose grant does not exist (revoked, or never issued)", async () => {
    const { token } = await mintAccessToken(keys, audience(), claims, 600);
    await expectRefused(token, "the sign-in behind this token was revoked or has expired; sign in again");
  });

  it("opens tokens sealed under an older secret once it is listed after the new one (rotation)", async () => {
    const old = new Keyring(["the-old-secret-of-thirty-two-characters!"]);
    const { token } = await mintAccessToken(old, audience(), claims, 600);
    const rotated = new Keyring([
      "the-new-secret-of-thirty-two-characters!",
      "the-old-secret-of-thirty-two-characters!",
    ]);
    expect((await openAccessToken(rotated, audience(), token)).credentials).toEqual(credentials);
    // The key inside is not readable without the secret: no part of the token holds it, encoded or not.
    for (const part of token.split("."))
      expect(Buffer.from(part, "base64url").toString("latin1")).not.toContain(SANDBOX_API_KEY);
  });
});

describe("codes", () => {
  async function codeFor() {
    const flow = await startFlow(server.origin);
    const callback = await consent(server.origin, flow.authorizationUrl, { workspaceKey: SANDBOX_API_KEY });
    return { flow, code: callback.get("code") as string };
  }
  const exchange = (
    flow: Awaited<ReturnType<typeof startFlow>>,
    code: string,
    extra: Record<string, string> = {},
  ) =>
    postForm(`${server.origin}/token`, {
      grant_type: "authorization_code",
      code,
      redirect_uri: flow.redirectUri,
      code_verifier: flow.verifier,
      client_id: flow.clientId,
      ...extra,
    });

  it("a code works once; used again it is refused and what it gave is revoked", async () => {
    const { flow, code } = await codeFor();
    const first = await exchange(flow, code);
    expect(first.status).toBe(200);
    expect(first.headers.get("cache-control")).toBe("no-store");
    const token = first.body?.access_token as string;
    expect((await rawMcp(server.url, bearer(token))).status).toBe(200);
    const again = await exchange(flow, code);
    expect([again.status, again.body]).toEqual([
      400,
      { error: "invalid_grant", error_description: "the code is unknown, expired or already used" },
    ]);
    await expectRefused(token, "the sign-in behind this token was revoked or has expired; sign in again");
  });

  it("refuses a wrong PKCE verifier, and the code is spent", async () => {
    const { flow, code } = await codeFor();
    const wrong = await exchange(flow, code, { code_verifier: "x".repeat(43) });
    expect([wrong.status, wrong.body]).toEqual([
      400,
      {
        error: "invalid_grant",
        error_description: "code_verifier does not match the code_challenge (PKCE S256)",
      },
    ]);
    expect((await exchange(flow, code)).status).toBe(400);
  });

  it("refuses a redirect_uri other than the authorization request's, and a resource other than /mcp", async () => {
    const { flow, code } = await codeFor();
    const moved = await exchange(flow, code, { redirect_uri: "http://127.0.0.1:9999/other" });
    expect(moved.body).toEqual({
      error: "invalid_grant",
      error_description: "redirect_uri differs from the authorization request's",
    });
    const second = await codeFor();
    const elsewhere = await exchange(second.flow, second.code, { resource: "https://other.example/mcp" });
    expect(elsewhere.body).toEqual({
      error: "invalid_target",
      error_description: `resource must be ${server.origin}/mcp`,
    });
  });

  it("refuses another client's code", async () => {
    const { code } = await codeFor();
    const thief = await startFlow(server.origin);
    const stolen = await exchange(thief, code);
    expect(stolen.body).toEqual({
      error: "invalid_grant",
      error_description: "the code was issued to another client",
    });
  });
});

describe("redirect URIs", () => {
  it("never redirects to a URI the client did not register: an error page, no Location", async () => {
    const flow = await startFlow(server.origin);
    for (const target of [
      "https://evil.example/cb",
      "http://127.0.0.1.evil.example/callback",
      "http://127.0.0.1:53682/callback/../x",
      "",
    ]) {
      const url = new URL(flow.authorizationUrl);
      url.searchParams.set("redirect_uri", target);
      const page = await openConsent(url);
      expect([target, page.status, page.headers.get("location")]).toEqual([target, 400, null]);
      expect(page.html).toContain("The address to send you back to is not one the application registered.");
    }
  });

  it("accepts a registered loopback URI on another port (RFC 8252)", async () => {
    const flow = await startFlow(server.origin);
    const url = new URL(flow.authorizationUrl);
    url.searchParams.set("redirect_uri", "http://127.0.0.1:40001/callback");
    expect((await openConsent(url)).status).toBe(200);
  });

  it("refuses to register javascript:, data: and non-loopback http URIs", async () => {
    for (const [uri, why] of [
      ["javascript:alert(1)", "a redirect URI is the javascript: scheme is not allowed"],
      ["data:text/html,hi", "a redirect URI is the data: scheme is not allowed"],
      [
        "http://evil.example/cb",
        "a redirect URI is http is allowed only on loopback (127.0.0.1, [::1], localhost); use https",
      ],
      ["https://ok.example/cb#frag", "a redirect URI is has a fragment"],
    ]) {
      const answer = await fetch(`${server.origin}/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ redirect_uris: [uri] }),
      });
      expect([answer.status, await answer.json()]).toEqual([
        400,
        { error: "invalid_redirect_uri", error_description: why },
      ]);
    }
  });

  it("an unknown client_id gets the error page; a request without PKCE goes back with invalid_request", async () => {
    const flow = await startFlow(server.origin);
    const unknown = new URL(flow.authorizationUrl);
    unknown.searchParams.set("client_id", "made-up");
    const page = await openConsent(unknown);
    expect([page.status, page.headers.get("location")]).toEqual([400, null]);
    expect(page.html).toContain(
      "The application is not known: unknown client_id: register the client first.",
    );
    const plain = new URL(flow.authorizationUrl);
    plain.searchParams.delete("code_challenge");
    const back = await fetch(plain, { redirect: "manual" });
    expect(back.status).toBe(303);
    const params = new URL(back.headers.get("location") ?? "").searchParams;
    expect(params.get("error")).toBe("invalid_request");
    expect(params.get("state")).toBe("state-1");
    expect(params.get("code")).toBeNull();
  });
});

describe("refresh and revocation", () => {
  const refresh = (clientId: string, token: string) =>
    postForm(`${server.origin}/token`, {
      grant_type: "refresh_token",
      refresh_token: token,
      client_id: clientId,
    });

  it("rotates refresh tokens; a used one presented again revokes the whole grant", async () => {
    const { flow, tokens } = await signInByHand(server.origin, { workspaceKey: SANDBOX_API_KEY });
    const next = await refresh(flow.clientId, tokens.refresh_token);
    expect(next.status).toBe(200);
    const rotated = next.body as { access_token: string; refresh_token: string; expires_in: number };
    expect(rotated.refresh_token).not.toBe(tokens.refresh_token);
    expect(rotated.expires_in).toBeLessThanOrEqual(3600);
    expect((await rawMcp(server.url, bearer(rotated.access_token))).status).toBe(200);
    const replay = await refresh(flow.clientId, tokens.refresh_token);
    expect(replay.body).toEqual({
      error: "invalid_grant",
      error_description: "the refresh token is unknown, expired, revoked or already used",
    });
    // The grant is gone: the newest tokens fail too.
    expect((await refresh(flow.clientId, rotated.refresh_token)).status).toBe(400);
    await expectRefused(
      rotated.access_token,
      "the sign-in behind this token was revoked or has expired; sign in again",
    );
  });

  it("revokes a grant by its refresh token or its access token (RFC 7009), and takes unknown tokens quietly", async () => {
    for (const which of ["refresh_token", "access_token"] as const) {
      const { flow, tokens } = await signInByHand(server.origin, { workspaceKey: SANDBOX_API_KEY });
      const answer = await postForm(`${server.origin}/revoke`, {
        token: tokens[which],
        client_id: flow.clientId,
      });
      expect(answer.status).toBe(200);
      await expectRefused(
        tokens.access_token,
        "the sign-in behind this token was revoked or has expired; sign in again",
      );
      const unknown = await postForm(`${server.origin}/revoke`, {
        token: "nothing-like-it",
        client_id: flow.clientId,
      });
      expect(unknown.status).toBe(200);
    }
  });

  it("refuses another client's refresh token", async () => {
    const { tokens } = await signInByHand(server.origin, { workspaceKey: SANDBOX_API_KEY });
    const other = await startFlow(server.origin);
    const answer = await refresh(other.clientId, tokens.refresh_token);
    expect(answer.body).toEqual({
      error: "invalid_grant",
      error_description: "the refresh token was issued to another client",
    });
  });

  it("answers malformed token requests with the OAuth error JSON", async () => {
    const json = await fetch(`${server.origin}/token`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect([json.status, await json.json()]).toEqual([
      400,
      {
        error: "invalid_request",
        error_description: "send the parameters as application/x-www-form-urlencoded",
      },
    ]);
    const flow = await startFlow(server.origin);
    const grant = await postForm(`${server.origin}/token`, {
      grant_type: "password",
      client_id: flow.clientId,
    });
    expect(grant.body?.error).toBe("unsupported_grant_type");
    const nobody = await postForm(`${server.origin}/token`, { grant_type: "authorization_code" });
    expect([nobody.status, nobody.body?.error]).toEqual([401, "invalid_client"]);
    const huge = await postForm(`${server.origin}/token`, { grant_type: "x".repeat(70_000) });
    expect([huge.status, huge.body?.error]).toEqual([413, "invalid_request"]);
  });
});

describe("client authentication at /token and /revoke", () => {
  /** A form POSTed with an Authorization header of HTTP Basic credentials (form-encoded, RFC 6749 §2.3.1). */
  async function withBasic(path: string, fields: Record<string, string>, id: string, secret: string) {
    const basic = Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString("base64");
    const response = await fetch(`${server.origin}${path}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", authorization: `Basic ${basic}` },
      body: new URLSearchParams(fields),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  }

  /** A confidential client (client_secret_basic), its consent done: the code and what exchanges it. */
  async function confidentialCode() {
    const registered = await fetch(`${server.origin}/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        redirect_uris: ["http://127.0.0.1:53682/callback"],
        token_endpoint_auth_method: "client_secret_basic",
      }),
    });
    const { client_id, client_secret } = (await registered.json()) as Record<string, string>;
    const flow = await startFlow(server.origin);
    const url = new URL(flow.authorizationUrl);
    url.searchParams.set("client_id", client_id!);
    const code = (await consent(server.origin, url, { workspaceKey: SANDBOX_API_KEY })).get("code")!;
    const exchange = {
      grant_type: "authorization_code",
      code,
      redirect_uri: flow.redirectUri,
      code_verifier: flow.verifier,
    };
    return { clientId: client_id!, secret: client_secret!, exchange };
  }

  const twoMethods = {
    error: "invalid_request",
    error_description:
      "use one client authentication method: HTTP Basic or client_secret in the form, not both",
  };

  it("refuses Basic and client_secret in one request, whichever is right, and issues nothing", async () => {
    const { clientId, secret, exchange } = await confidentialCode();
    // The right secret in Basic and a wrong one in the form, then the other way round.
    const rightBasic = await withBasic("/token", { ...exchange, client_secret: "wrong" }, clientId, secret);
    const rightForm = await withBasic("/token", { ...exchange, client_secret: secret }, clientId, "wrong");
    const bothRight = await withBasic("/token", { ...exchange, client_secret: secret }, clientId, secret);
    for (const answer of [rightBasic, rightForm, bothRight]) {
      expect(answer).toEqual({ status: 400, body: twoMethods });
    }
    expect(
      logLines()
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((line) => line.event === "signin_refused")
        .map((line) => line.reason),
    ).toEqual(["client_auth", "client_auth", "client_auth"]);
    // Refused before the code was read: with one method, the same code still works once.
    const one = await withBasic("/token", exchange, clientId, secret);
    expect(one.status).toBe(200);
    const tokens = one.body as { access_token: string; refresh_token: string };

    // The same at /revoke: refused either way, and the grant goes on.
    for (const [inBasic, inForm] of [
      [secret, "wrong"],
      ["wrong", secret],
    ]) {
      const answer = await withBasic(
        "/revoke",
        { token: tokens.refresh_token, client_secret: inForm! },
        clientId,
        inBasic!,
      );
      expect(answer).toEqual({ status: 400, body: twoMethods });
    }
    expect((await rawMcp(server.url, bearer(tokens.access_token))).status).toBe(200);
    expect((await withBasic("/revoke", { token: tokens.refresh_token }, clientId, secret)).status).toBe(200);
    expect((await rawMcp(server.url, bearer(tokens.access_token))).status).toBe(401);
  });

  it("refuses a client_id or client_secret sent twice, and a form client_id other than Basic's", async () => {
    const { clientId, secret, exchange } = await confidentialCode();
    const twice = await fetch(`${server.origin}/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `${new URLSearchParams({ ...exchange, client_id: clientId, client_secret: "wrong" })}&client_secret=${encodeURIComponent(secret)}`,
    });
    expect([twice.status, await twice.json()]).toEqual([
      400,
      { error: "invalid_request", error_description: "client_id and client_secret may each be sent once" },
    ]);
    const other = await startFlow(server.origin);
    expect(await withBasic("/token", { ...exchange, client_id: other.clientId }, clientId, secret)).toEqual({
      status: 400,
      body: {
        error: "invalid_request",
        error_description: "client_id in the form differs from the HTTP Basic client",
      },
    });
    // The same client named in both is one client: the exchange goes through.
    expect((await withBasic("/token", { ...exchange, client_id: clientId }, clientId, secret)).status).toBe(
      200,
    );
  });
});

describe("client metadata documents", () => {
  // A failed fetch waits out the fetch's bound on the fetcher's clock: here it answers at once.
  const realSleep = metadataClock.sleep;
  beforeEach(() => {
    metadataClock.sleep = async () => {};
  });
  afterEach(() => {
    metadataClock.sleep = realSleep;
  });

  /** A message as the page shows it (its apostrophe escaped). */
  const shown = (text: string) => text.replaceAll("'", "&#39;");
  /** The consent page's answer to a client_id naming `path` on a metadata host answering with `respond`. */
  async function tryDocument(
    target: OAuthHarness,
    respond: Parameters<typeof startMetadataHost>[0],
    clientIdOf: (origin: string) => string = (origin) => `${origin}/client.json`,
  ) {
    const host = await startMetadataHost(respond);
    try {
      const flow = await startFlow(target.origin);
      const url = new URL(flow.authorizationUrl);
      url.searchParams.set("client_id", clientIdOf(host.origin));
      return await openConsent(url);
    } finally {
      await host.close();
    }
  }
  const document = (origin: string, path: string) =>
    JSON.stringify({ client_id: `${origin}${path}`, redirect_uris: ["http://127.0.0.1:53682/callback"] });

  it("refuses a document on a loopback or private address unless the setting allows it", async () => {
    const strict = await startOAuth({ allowPrivateMetadata: false, sandbox: server.sandbox });
    try {
      for (const clientIdOf of [
        (origin: string) => `${origin}/client.json`,
        (origin: string) => `${origin.replace("127.0.0.1", "localhost")}/client.json`,
      ]) {
        const page = await tryDocument(
          strict,
          (path, res, origin) => res.end(document(origin, path)),
          clientIdOf,
        );
        expect([page.status, page.headers.get("location")]).toEqual([400, null]);
        expect(page.html).toContain(`The application is not known: ${shown(METADATA_FETCH_FAILED)}.`);
      }
    } finally {
      await strict.close();
    }
  });

  it("follows no redirect, reads no more than 5 KB, and waits no longer than its timeout", async () => {
    const redirected = await tryDocument(server, (_path, res) => {
      res.writeHead(302, { location: "https://127.0.0.1:1/elsewhere.json" }).end();
    });
    expect(redirected.html).toContain(shown(METADATA_FETCH_FAILED));
    const huge = await tryDocument(server, (path, res, origin) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(`${document(origin, path).slice(0, -1)}, "padding": "${"x".repeat(6000)}"}`);
    });
    expect(huge.html).toContain(shown(METADATA_FETCH_FAILED));
    const quick = await startOAuth({ metadataTimeoutMs: 300, sandbox: server.sandbox });
    try {
      const hanging = await tryDocument(quick, () => {});
      expect([hanging.status, hanging.headers.get("location")]).toEqual([400, null]);
      expect(hanging.html).toContain(shown(METADATA_FETCH_FAILED));
    } finally {
      await quick.close();
    }
    expect((await fetch(`${server.origin}/.well-known/oauth-protected-resource`)).status).toBe(200);
  });

  it("refuses a document naming another client_id, and one with a redirect URI not allowed", async () => {
    const other = await tryDocument(server, (_path, res) =>
      res.end(
        JSON.stringify({
          client_id: "https://elsewhere.example/c.json",
          redirect_uris: ["https://a.example/cb"],
        }),
      ),
    );
    expect(other.html).toContain(shown(METADATA_FETCH_FAILED));
    const bad = await tryDocument(server, (path, res, origin) =>
      res.end(JSON.stringify({ client_id: `${origin}${path}`, redirect_uris: ["javascript:alert(1)"] })),
    );
    expect(bad.html).toContain("lists a redirect URI that is not allowed");
  });
});

describe("two people at once", () => {
  it("each call carries its own person's key, never the other's", async () => {
    const [alice, bob] = await Promise.all([
      signInByHand(server.origin, { workspaceKey: SANDBOX_API_KEY }),
      signInByHand(server.origin, { workspaceKey: SANDBOX_SINGLE_PROJECT_API_KEY }),
    ]);
    const connect = async (token: string) => {
      const client = new Client({ name: "person", version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: bearer(token) } }),
      );
      return client;
    };
    const [a, b] = await Promise.all([connect(alice.tokens.access_token), connect(bob.tokens.access_token)]);
    try {
      server.sandbox.requests.length = 0;
      const calls = Array.from({ length: 6 }, (_, i) =>
        (i % 2 === 0 ? a : b).callTool({ name: "whoami", arguments: {} }),
      );
      const results = await Promise.all(calls);
      expect(results.every((r) => !r.isError)).toBe(true);
      const keys = server.sandbox.requests.map((r) => r.headers["x-api-key"]).sort();
      expect(keys).toEqual(
        [...Array(3).fill(SANDBOX_API_KEY), ...Array(3).fill(SANDBOX_SINGLE_PROJECT_API_KEY)].sort(),
      );
      // Each person's answers are their own: the identities differ between the two and agree within each.
      const identity = (i: number) => JSON.stringify(results[i]?.structuredContent);
      expect(identity(0)).toBe(identity(2));
      expect(identity(1)).toBe(identity(3));
      expect(identity(0)).not.toBe(identity(1));
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it("a session opened under one grant refuses another grant's token", async () => {
    const [alice, bob] = await Promise.all([
      signInByHand(server.origin, { workspaceKey: SANDBOX_API_KEY }),
      signInByHand(server.origin, { workspaceKey: SANDBOX_SINGLE_PROJECT_API_KEY }),
    ]);
    const opened = await fetch(server.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...bearer(alice.tokens.access_token),
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "raw", version: "1" },
        },
      }),
    });
    const session = opened.headers.get("mcp-session-id") ?? "";
    expect(session).not.toBe("");
    await opened.text();
    const hijack = await fetch(server.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": session,
        "x-mcp-oauth-grant": "forged",
        ...bearer(bob.tokens.access_token),
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    });
    expect(hijack.status).toBe(403);
  });
});

describe("replicas sharing the store and the secret", () => {
  it("sign in through one, call and refresh through the other; a reused refresh token is caught on either", async () => {
    const other = await startOAuth({
      store: server.store,
      httpOverrides: { publicUrl: server.origin },
      sandbox: server.sandbox,
    });
    try {
      const { flow, tokens } = await signInByHand(server.origin, { workspaceKey: SANDBOX_API_KEY });
      expect((await rawMcp(other.url, bearer(tokens.access_token))).status).toBe(200);
      const refreshed = await postForm(`${other.origin}/token`, {
        grant_type: "refresh_token",
        refresh_token: tokens.refresh_token,
        client_id: flow.clientId,
      });
      expect(refreshed.status).toBe(200);
      const replay = await postForm(`${server.origin}/token`, {
        grant_type: "refresh_token",
        refresh_token: tokens.refresh_token,
        client_id: flow.clientId,
      });
      expect(replay.body?.error).toBe("invalid_grant");
      const rotatedAccess = refreshed.body?.access_token as string;
      expect((await rawMcp(other.url, bearer(rotatedAccess))).status).toBe(401);
    } finally {
      await other.close();
    }
  });
});
