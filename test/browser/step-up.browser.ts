// Scope step-up end to end with SDK v2's client and its own OAuth provider, every consent given by a person
// in Chromium, in both protocol eras: the provider opens each authorization URL in the browser, the person
// types the key and answers, and the browser lands at the client's loopback callback. A sign-in for
// reading; a comment on that grant gets HTTP 403 insufficient_scope with nothing sent upstream; the client
// asks again with workspace:write, which the page shows ticked; after Allow the same comment is posted once.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  Client,
  type FetchLike,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from "@modelcontextprotocol/client";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCOPE_LABELS } from "../../src/oauth/consent-page.js";
import { SANDBOX_API_KEY } from "../../src/sandbox/index.js";
import { logLines } from "../log-capture.js";
import { MemoryProvider, type OAuthHarness, startOAuth } from "../oauth-harness.js";
import { MODERN } from "../revision-clients.js";
import { launchChromium } from "./chromium.js";

const LEGACY = "2025-11-25";
const READ = "workspace:read analytics:read";
const ALL = ["analytics:read", "workspace:read", "workspace:write"];

const clientOf = (era: string) =>
  era === MODERN
    ? new Client({ name: "step-up", version: "1.0.0" }, { versionNegotiation: { mode: { pin: MODERN } } })
    : new Client({ name: "step-up", version: "1.0.0" }, { supportedProtocolVersions: [LEGACY] });

/** The client's provider, as a desktop client has it: each authorization URL is opened in the browser. */
class BrowserProvider extends MemoryProvider {
  constructor(
    redirectUrl: string,
    private readonly page: Page,
  ) {
    super(redirectUrl, undefined, "Step-up assistant");
  }
  override async redirectToAuthorization(url: URL) {
    super.redirectToAuthorization(url);
    await this.page.goto(url.href);
  }
}

let server: OAuthHarness;
let callback: Server;
let callbackUrl: string;
/** Who waits for the next redirect to the client's loopback callback. */
let landed: ((query: URLSearchParams) => void) | undefined;
let profile: string;

beforeAll(async () => {
  server = await startOAuth();
  callback = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (url.pathname !== "/callback") return res.writeHead(404).end(); // the browser's favicon.ico
    res
      .writeHead(200, { "content-type": "text/html" })
      .end("<!doctype html><title>back</title><p>Signed in. You may close this tab.</p>");
    landed?.(url.searchParams);
  });
  await new Promise<void>((resolve) => callback.listen(0, "127.0.0.1", resolve));
  callbackUrl = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
  profile = mkdtempSync(join(tmpdir(), "step-up-chromium-"));
});

afterAll(async () => {
  await server?.close();
  await new Promise((resolve) => callback?.close(resolve));
  if (profile) rmSync(profile, { recursive: true, force: true });
});

/** The next query the loopback callback receives. */
const nextCallback = () =>
  new Promise<URLSearchParams>((resolve) => {
    landed = resolve;
  });

/** The person picks the default projects, leaves the scopes as they are, and allows. */
async function chooseAndAllow(page: Page) {
  await page.getByLabel("Default workspace project").selectOption(server.sandbox.workspaceProjectId);
  await page.getByLabel("Default analytics project").selectOption(server.sandbox.analyticsProjectId);
  await page.getByRole("button", { name: "Allow" }).click();
}

/** What the person sees ticked on the choices page, by label. */
async function ticked(page: Page): Promise<Record<string, boolean>> {
  const state: Record<string, boolean> = {};
  for (const label of Object.values(SCOPE_LABELS)) state[label] = await page.getByLabel(label).isChecked();
  return state;
}

/** The person on the consent page the provider opened: types the key, checks it, and waits for the choices. */
async function typeKey(page: Page) {
  await page.getByLabel("Workspace API key").fill(SANDBOX_API_KEY);
  await page.getByRole("button", { name: "Check key" }).click();
  await page.getByRole("button", { name: "Allow" }).waitFor();
}

describe.each([MODERN, LEGACY])("step-up with a person in Chromium, %s era", (era) => {
  let context: BrowserContext;
  beforeAll(async () => {
    context = await launchChromium(join(profile, era), { javaScriptEnabled: false });
  });
  afterAll(() => context?.close());

  it("a read sign-in's comment gets 403 with nothing sent; the person allows writing and the comment is posted once", async () => {
    const page = context.pages()[0] ?? (await context.newPage());
    const provider = new BrowserProvider(callbackUrl, page);
    // Every answer to the client's POSTs at the MCP endpoint: status, and the challenge's error and scope
    // (the older era's GET stream beside them is left out).
    const answers: [number, string | undefined, string | undefined][] = [];
    const param = (challenge: string, name: string) => new RegExp(`${name}="([^"]*)"`).exec(challenge)?.[1];
    const watched: FetchLike = async (input, init) => {
      const response = await fetch(input, init);
      if (String(input) === server.url && init?.method === "POST") {
        const challenge = response.headers.get("www-authenticate") ?? "";
        answers.push([response.status, param(challenge, "error"), param(challenge, "scope")]);
      }
      return response;
    };
    const transport = () =>
      new StreamableHTTPClientTransport(new URL(server.url), { authProvider: provider, fetch: watched });

    // No token: the 401 challenge, and the provider opens the consent page asking for reading.
    let back = nextCallback();
    await expect(clientOf(era).connect(transport())).rejects.toBeInstanceOf(UnauthorizedError);
    expect(answers).toEqual([[401, undefined, READ]]);
    expect(new URL(page.url()).searchParams.get("scope")).toBe(READ);
    await typeKey(page);
    expect(await ticked(page)).toEqual({
      [SCOPE_LABELS["workspace:read"]]: true,
      [SCOPE_LABELS["workspace:write"]]: false,
      [SCOPE_LABELS["analytics:read"]]: true,
    });
    await chooseAndAllow(page);
    const first = await back;
    await page.waitForURL((url) => url.href.startsWith(callbackUrl));
    expect(first.get("state")).toBe(provider.authorizationUrl?.searchParams.get("state"));
    expect(first.get("iss")).toBe(server.origin);
    const signing = transport();
    await signing.finishAuth(first);
    expect((provider.tokens() as { scope?: string }).scope).toBe(READ);

    const client = clientOf(era);
    const used = transport();
    await client.connect(used);
    try {
      server.sandbox.requests.length = 0;
      answers.length = 0;
      back = nextCallback();
      const args = { task_id: server.sandbox.ids.taskId, body: "written after a person allowed it" };
      await expect(client.callTool({ name: "tasks_comments", arguments: args })).rejects.toBeInstanceOf(
        UnauthorizedError,
      );
      expect(answers).toEqual([[403, "insufficient_scope", "workspace:read workspace:write analytics:read"]]);
      expect(server.sandbox.requests).toEqual([]);

      // The provider opened the new authorization URL; the page shows what it asks for ticked.
      const asked = new URL(page.url());
      expect(asked.origin).toBe(server.origin);
      expect(asked.searchParams.get("scope")?.split(" ").sort()).toEqual(ALL);
      await typeKey(page);
      expect(await ticked(page)).toEqual({
        [SCOPE_LABELS["workspace:read"]]: true,
        [SCOPE_LABELS["workspace:write"]]: true,
        [SCOPE_LABELS["analytics:read"]]: true,
      });
      await chooseAndAllow(page);
      const second = await back;
      await page.waitForURL((url) => url.href.startsWith(callbackUrl));
      expect(second.get("state")).toBe(asked.searchParams.get("state"));
      server.sandbox.requests.length = 0; // the consent page's checks of the key
      await used.finishAuth(second);
      expect((provider.tokens() as { scope?: string }).scope?.split(" ").sort()).toEqual(ALL);

      const result = await client.callTool({ name: "tasks_comments", arguments: args });
      expect(result.isError).toBeFalsy();
      expect(
        server.sandbox.requests.map((r) => [
          r.method,
          r.path,
          r.headers["x-api-key"],
          (r.body as { body?: string } | undefined)?.body,
        ]),
      ).toEqual([["POST", "/api/v1/business/tasks/comments", SANDBOX_API_KEY, args.body]]);
      const logged = logLines().join("");
      expect(logged).not.toContain(SANDBOX_API_KEY);
      expect(logged).not.toContain(provider.accessToken);
    } finally {
      await client.close();
    }
  });
});
