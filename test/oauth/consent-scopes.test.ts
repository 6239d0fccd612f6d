// What a sign-in is granted: the scopes the client asked for (an unknown one sent back as invalid_scope)
// shown as the person's choices and narrowed by them; the key checked with every configured API whatever
// tools are served; and the audit line of each sign-in and each refusal, never a key.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Scope } from "../../src/oauth/grant.js";
import { SANDBOX_API_KEY } from "../../src/sandbox/index.js";
import { logLines } from "../log-capture.js";
import {
  type ConsentPage,
  type HandFlow,
  type OAuthHarness,
  openConsent,
  postConsent,
  scopeFields,
  startFlow,
  startOAuth,
} from "../oauth-harness.js";
import { auditLines, granted } from "./consent-helpers.js";

const WHOAMI = "GET /api/v1/business/whoami";
const GEO_PROJECTS = "POST /v2/geo/business/projects";

let server: OAuthHarness;
beforeAll(async () => {
  server = await startOAuth();
});
afterAll(() => server.close());
afterEach(() => {
  const logged = logLines().join("");
  expect(logged).not.toContain(SANDBOX_API_KEY);
  expect(logged).not.toContain("wrong-key");
});

/** The authorization URL of `flow` asking for `scope` (none: the parameter left out). */
function asking(flow: HandFlow, scope?: string): URL {
  const url = new URL(flow.authorizationUrl);
  if (scope !== undefined) url.searchParams.set("scope", scope);
  return url;
}

/** The checkboxes of a page of choices: each offered scope, and whether it is ticked. */
function boxes(html: string): Record<string, boolean> {
  const found: Record<string, boolean> = {};
  for (const match of html.matchAll(/<input type="checkbox" name="([^"]+)" value="1"( checked)?>/g))
    found[match[1] as string] = match[2] !== undefined;
  return found;
}

/** Key step with the sandbox's key on `target`: the page of choices. */
async function choicesOn(target: OAuthHarness, url: URL): Promise<ConsentPage> {
  const page = await openConsent(url);
  expect(page.status).toBe(200);
  const keyStep = await postConsent(target.origin, page, { step: "key", workspace_key: SANDBOX_API_KEY });
  const html = await keyStep.text();
  expect([keyStep.status, html.includes("The key was accepted.")]).toEqual([200, true]);
  return { ...page, html };
}

/** Allows `scopes` on a page of choices and exchanges the code: the scopes the access token holds. */
async function grantedScopes(
  target: OAuthHarness,
  flow: HandFlow,
  choices: ConsentPage,
  scopes: readonly string[],
): Promise<Scope[]> {
  return (await granted(target, flow, choices, scopes)).scopes;
}

describe("scopes asked for", () => {
  it("sends an unknown scope back to the client as invalid_scope, with state and iss, and no page", async () => {
    const flow = await startFlow(server.origin);
    for (const scope of ["workspace:admin", "workspace:read openid", "WORKSPACE:READ"]) {
      const answer = await fetch(asking(flow, scope), { redirect: "manual" });
      expect(answer.status).toBe(303);
      const back = new URL(answer.headers.get("location") ?? "");
      expect(Object.fromEntries(back.searchParams)).toEqual({
        error: "invalid_scope",
        error_description: "scope may hold workspace:read, workspace:write, analytics:read (space-separated)",
        state: "state-1",
        iss: server.origin,
      });
    }
  });

  it("pre-sets the choices to what was asked; none asked is everything served", async () => {
    const flow = await startFlow(server.origin);
    expect(boxes((await choicesOn(server, asking(flow, "workspace:read"))).html)).toEqual({
      "workspace:read": true,
      "workspace:write": false,
      "analytics:read": false,
    });
    expect(boxes((await choicesOn(server, asking(flow, " analytics:read  workspace:write "))).html)).toEqual({
      "workspace:read": false,
      "workspace:write": true,
      "analytics:read": true,
    });
    expect(boxes((await choicesOn(server, asking(flow))).html)).toEqual({
      "workspace:read": true,
      "workspace:write": true,
      "analytics:read": true,
    });
    // The key page says what is asked, before any key is typed.
    const page = await openConsent(asking(flow, "workspace:read workspace:write"));
    expect(page.html).toContain(
      "It asks to: read your tasks and agent runs; add comments to tasks (tasks_comments).",
    );
  });

  it("grants what the person ticks: less than asked, and nothing the server does not serve", async () => {
    const flow = await startFlow(server.origin);
    const all = await choicesOn(server, asking(flow));
    expect(await grantedScopes(server, flow, all, ["analytics:read"])).toEqual(["analytics:read"]);
    const read = await choicesOn(server, asking(flow, "workspace:read"));
    expect(await grantedScopes(server, flow, read, ["workspace:read", "workspace:write", "admin"])).toEqual([
      "workspace:read",
      "workspace:write",
    ]);
  });

  it("keeps a default project only when the key was shown it", async () => {
    const flow = await startFlow(server.origin);
    const seen = server.sandbox.workspaceProjectId;
    const choices = await choicesOn(server, asking(flow));
    const chosen = await granted(server, flow, choices, ["workspace:read"], { workspace_project: seen });
    expect(chosen.workspaceProjectId).toBe(seen);
    const other = await choicesOn(server, asking(flow));
    const forged = await granted(server, flow, other, ["workspace:read"], { workspace_project: "not-shown" });
    expect(forged).toEqual({ workspaceApiKey: SANDBOX_API_KEY, scopes: ["workspace:read"] });
  });

  it("with nothing ticked, shows the choices again and issues no code", async () => {
    const flow = await startFlow(server.origin);
    const choices = await choicesOn(server, asking(flow));
    const none = await postConsent(server.origin, choices, { step: "allow" });
    expect(none.status).toBe(400);
    expect(none.headers.get("location")).toBeNull();
    const html = await none.text();
    expect(html).toContain("Allow at least one thing, or Deny.");
    expect(boxes(html)).toEqual({ "workspace:read": true, "workspace:write": true, "analytics:read": true });
    // The page shown again still works.
    expect(await grantedScopes(server, flow, { ...choices, html }, ["workspace:read"])).toEqual([
      "workspace:read",
    ]);
  });
});

describe("the key check", () => {
  it("asks both APIs whatever tools are served, and offers only the scopes of served tools", async () => {
    for (const tools of [["tasks_query"], ["geo_projects"], ["tasks_comments"]]) {
      const narrow = await startOAuth({ tools: new Set(tools), sandbox: server.sandbox });
      try {
        const flow = await startFlow(narrow.origin);
        const page = await openConsent(flow.authorizationUrl);
        server.sandbox.requests.length = 0;
        const refused = await postConsent(narrow.origin, page, { step: "key", workspace_key: "wrong-key" });
        expect(refused.status).toBe(400);
        expect(await refused.text()).toContain("refused this key (401)");
        expect(server.sandbox.requests.map((r) => `${r.method} ${r.path}`).sort()).toEqual([
          WHOAMI,
          GEO_PROJECTS,
        ]);
        expect(server.sandbox.requests.every((r) => r.headers["x-api-key"] === "wrong-key")).toBe(true);
        const choices = await choicesOn(narrow, flow.authorizationUrl);
        const offered = {
          tasks_query: "workspace:read",
          geo_projects: "analytics:read",
          tasks_comments: "workspace:write",
        };
        const scope = offered[tools[0] as keyof typeof offered];
        expect(boxes(choices.html)).toEqual({ [scope]: true });
        expect(
          await grantedScopes(narrow, flow, choices, ["workspace:read", "workspace:write", "analytics:read"]),
        ).toEqual([scope]);
      } finally {
        await narrow.close();
      }
    }
  });

  it("on a server with one API set up, checks the key with that one and offers its scopes only", async () => {
    const workspaceOnly = await startOAuth({
      upstream: { analyticsBaseUrl: undefined },
      sandbox: server.sandbox,
    });
    try {
      const flow = await startFlow(workspaceOnly.origin);
      const page = await openConsent(flow.authorizationUrl);
      server.sandbox.requests.length = 0;
      const refused = await postConsent(workspaceOnly.origin, page, {
        step: "key",
        workspace_key: "wrong-key",
      });
      expect(await refused.text()).toContain("The workspace API refused this key (401).");
      expect(server.sandbox.requests.map((r) => `${r.method} ${r.path}`)).toEqual([WHOAMI]);
      const choices = await choicesOn(workspaceOnly, flow.authorizationUrl);
      expect(boxes(choices.html)).toEqual({ "workspace:read": true, "workspace:write": true });
      expect(await grantedScopes(workspaceOnly, flow, choices, ["workspace:read", "analytics:read"])).toEqual(
        ["workspace:read"],
      );
    } finally {
      await workspaceOnly.close();
    }
  });

  it("grants nothing on a server with no API to check the key with", async () => {
    const none = await startOAuth({
      upstream: { workspaceBaseUrl: undefined, analyticsBaseUrl: undefined },
      sandbox: server.sandbox,
    });
    try {
      const flow = await startFlow(none.origin);
      const page = await openConsent(flow.authorizationUrl);
      const answer = await postConsent(none.origin, page, { step: "key", workspace_key: SANDBOX_API_KEY });
      expect(answer.status).toBe(400);
      expect(await answer.text()).toContain("This server has no API set up to check the key with.");
      const allow = await postConsent(none.origin, page, {
        step: "allow",
        ...scopeFields(["workspace:read"]),
      });
      expect([allow.status, allow.headers.get("location")]).toEqual([400, null]);
    } finally {
      await none.close();
    }
  });
});

describe("audit lines", () => {
  it("one per consent (client and scopes), per grant its code makes, and per refusal (client and reason), never a key", async () => {
    const flow = await startFlow(server.origin);
    const client = flow.clientId;
    // invalid_scope, a refused key, a forged form, a denial, then a sign-in.
    await fetch(asking(flow, "everything"), { redirect: "manual" });
    const page = await openConsent(flow.authorizationUrl);
    await postConsent(server.origin, page, { step: "key", workspace_key: "wrong-key" });
    await postConsent(
      server.origin,
      page,
      { step: "key", workspace_key: SANDBOX_API_KEY },
      { csrf: "forged" },
    );
    await postConsent(server.origin, page, { step: "deny" });
    const choices = await choicesOn(server, asking(flow, "workspace:read analytics:read"));
    await grantedScopes(server, flow, choices, ["workspace:read"]);
    const unknown = new URL(flow.authorizationUrl);
    unknown.searchParams.set("client_id", "made-up");
    await openConsent(unknown);
    expect(auditLines()).toEqual([
      { event: "signin_refused", client, outcome: "refused", reason: "invalid_scope" },
      { event: "signin_refused", client, outcome: "refused", reason: "key_refused" },
      { event: "signin_refused", client, outcome: "refused", reason: "csrf" },
      { event: "signin_refused", client, outcome: "refused", reason: "denied" },
      { event: "consent", client, scopes: "workspace:read", outcome: "ok" },
      // The code's exchange: the grant it made, tied to the consent by client and scopes.
      {
        event: "signin",
        grant: expect.stringMatching(/^[0-9a-f-]{36}$/),
        client,
        scopes: "workspace:read",
        outcome: "ok",
      },
      { event: "signin_refused", client: "made-up", outcome: "refused", reason: "unknown_client" },
    ]);
  });
});
