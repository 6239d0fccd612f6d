// How the consent form's answers hold: a form posted from another site is refused with the page and an
// audit line; a form is answered once (Allow or Deny, whichever comes first); a key counts as accepted
// only by an answer of the documented shape; and only keys an API checked enter a grant.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SANDBOX_API_KEY } from "../../src/sandbox/index.js";
import {
  type ConsentPage,
  fieldOf,
  type OAuthHarness,
  openConsent,
  postConsent,
  scopeFields,
  startFlow,
  startOAuth,
} from "../oauth-harness.js";
import { auditLines, granted } from "./consent-helpers.js";

let server: OAuthHarness;
beforeAll(async () => {
  server = await startOAuth();
});
afterAll(() => server.close());

/** The key step posted with `fields` on `target`: the page of choices. */
async function keyStep(target: OAuthHarness, page: ConsentPage, fields: Record<string, string>) {
  const answer = await postConsent(target.origin, page, { step: "key", ...fields });
  return { status: answer.status, html: await answer.text(), page };
}

describe("a form posted from another site", () => {
  it("gets the error page and a signin_refused line, for a foreign Origin and for null", async () => {
    const flow = await startFlow(server.origin);
    const page = await openConsent(flow.authorizationUrl);
    for (const origin of ["https://evil.example", "null"]) {
      const answer = await fetch(`${server.origin}/authorize`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", cookie: page.cookie, origin },
        body: new URLSearchParams({
          request: fieldOf(page.html, "request"),
          csrf: fieldOf(page.html, "csrf"),
          step: "deny",
        }),
      });
      expect([answer.status, answer.headers.get("content-type"), answer.headers.get("location")]).toEqual([
        403,
        "text/html; charset=utf-8",
        null,
      ]);
      expect(await answer.text()).toContain("<h1>Sign-in cannot continue</h1>");
    }
    expect(auditLines()).toEqual([
      { event: "signin_refused", outcome: "refused", reason: "origin" },
      { event: "signin_refused", outcome: "refused", reason: "origin" },
    ]);
  });
});

describe("a form answered once", () => {
  it("refuses a Deny after Allow, from the same page of choices or from the key step before it", async () => {
    const flow = await startFlow(server.origin);
    const page = await openConsent(flow.authorizationUrl);
    const choices = { ...page, html: (await keyStep(server, page, { workspace_key: SANDBOX_API_KEY })).html };
    const allowed = await postConsent(server.origin, choices, {
      step: "allow",
      ...scopeFields(["workspace:read"]),
    });
    expect(new URL(allowed.headers.get("location") ?? "").searchParams.has("code")).toBe(true);
    for (const form of [choices, page]) {
      const denied = await postConsent(server.origin, form, { step: "deny" });
      expect([denied.status, denied.headers.get("location")]).toEqual([409, null]);
      expect(await denied.text()).toContain("This sign-in form was already answered.");
    }
  });

  it("refuses an Allow after Deny", async () => {
    const flow = await startFlow(server.origin);
    const page = await openConsent(flow.authorizationUrl);
    const choices = { ...page, html: (await keyStep(server, page, { workspace_key: SANDBOX_API_KEY })).html };
    const denied = await postConsent(server.origin, choices, { step: "deny" });
    expect(new URL(denied.headers.get("location") ?? "").searchParams.get("error")).toBe("access_denied");
    const allowed = await postConsent(server.origin, choices, {
      step: "allow",
      ...scopeFields(["workspace:read"]),
    });
    expect([allowed.status, allowed.headers.get("location")]).toEqual([409, null]);
  });
});

describe("the key check", () => {
  let upstream: Server;
  let body = "";
  let answering: OAuthHarness;
  beforeAll(async () => {
    upstream = createServer((_req, res) =>
      res.writeHead(200, { "content-type": "application/json" }).end(body),
    );
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    answering = await startOAuth({ upstream: { workspaceBaseUrl: base, analyticsBaseUrl: base } });
  });
  afterAll(async () => {
    await answering.close();
    await new Promise((resolve) => upstream.close(resolve));
  });

  it("counts a key as accepted only by answers of the documented shape", async () => {
    const flow = await startFlow(answering.origin);
    const outcome = async (answer: string) => {
      body = answer;
      const page = await openConsent(flow.authorizationUrl);
      const { status, html } = await keyStep(answering, page, { workspace_key: "some-key" });
      return [answer, status, html.includes("The key was accepted.")];
    };
    for (const answer of ['{"success":false}', "null", "[]", '{"projects":"none","data":{}}', '"ok"'])
      expect(await outcome(answer)).toEqual([answer, 400, false]);
    // whoami's projects and the projects list's data: both lists.
    expect(await outcome('{"projects":[],"data":[]}')).toEqual(['{"projects":[],"data":[]}', 200, true]);
    body = '{"success":false}';
    const page = await openConsent(flow.authorizationUrl);
    expect((await keyStep(answering, page, { workspace_key: "some-key" })).html).toContain(
      "The workspace API did not answer the key check as it should (no list of projects).",
    );
  });
});

describe("with one API set up", () => {
  it("keeps no key the other API would have checked", async () => {
    for (const [upstream, fields, scope] of [
      [
        { analyticsBaseUrl: undefined },
        { workspace_key: SANDBOX_API_KEY, analytics_key: "unchecked-key" },
        "workspace:read",
      ],
      [
        { workspaceBaseUrl: undefined },
        { workspace_key: "unchecked-key", analytics_key: SANDBOX_API_KEY },
        "analytics:read",
      ],
    ] as const) {
      const one = await startOAuth({ upstream, sandbox: server.sandbox });
      try {
        const flow = await startFlow(one.origin);
        const page = await openConsent(flow.authorizationUrl);
        const step = await keyStep(one, page, fields);
        expect([step.status, step.html.includes("The key was accepted.")]).toEqual([200, true]);
        const grant = await granted(one, flow, { ...page, html: step.html }, [scope]);
        expect([grant.workspaceApiKey, grant.analyticsApiKey]).toEqual([SANDBOX_API_KEY, undefined]);
      } finally {
        await one.close();
      }
    }
  });
});
