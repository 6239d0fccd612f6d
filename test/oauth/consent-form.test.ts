// The consent in progress lives in its sealed form, not in the store: anonymous page loads and key
// steps write nothing, the one write is the allow step's single-use mark (then the code), a replayed,
// expired, altered or foreign form is refused, and two pages in two tabs each sign in.
import { request } from "undici";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openForm, sealForm } from "../../src/oauth/consent-form.js";
import { Keyring, mintAccessToken } from "../../src/oauth/seal.js";
import { SANDBOX_API_KEY } from "../../src/sandbox/index.js";
import { memoryStore, type SharedStore } from "../../src/state/store.js";
import { logLines } from "../log-capture.js";
import {
  type ConsentPage,
  fieldOf,
  type OAuthHarness,
  openConsent,
  postConsent,
  postForm,
  scopeFields,
  startFlow,
  startOAuth,
  TEST_SECRET,
} from "../oauth-harness.js";
import { auditLines } from "./consent-helpers.js";

/** A memory store that notes the key of every write. */
function watchedStore(): { store: SharedStore; written: string[] } {
  const inner = memoryStore();
  const written: string[] = [];
  const store: SharedStore = {
    ...inner,
    set: (key, value, ttl) => {
      written.push(key);
      return inner.set(key, value, ttl);
    },
    setIfAbsent: (key, value, ttl) => {
      written.push(key);
      return inner.setIfAbsent(key, value, ttl);
    },
  };
  return { store, written };
}

const keys = new Keyring([TEST_SECRET]);
const watched = watchedStore();
let server: OAuthHarness;
beforeAll(async () => {
  server = await startOAuth({ store: watched.store });
});
afterAll(() => server.close());
afterEach(() => {
  expect(logLines().join("")).not.toContain(SANDBOX_API_KEY);
});

const FORM_REFUSED = "This sign-in form has expired or was not sent from its own page";
const allowFields = { step: "allow", ...scopeFields(["workspace:read", "analytics:read"]) };

/** A page and its key step passed with the sandbox's key: the page of choices, with the first page's cookie. */
async function choicesPage(origin: string, authorizationUrl: URL): Promise<ConsentPage> {
  const page = await openConsent(authorizationUrl);
  const keyStep = await postConsent(origin, page, { step: "key", workspace_key: SANDBOX_API_KEY });
  expect(keyStep.status).toBe(200);
  return { ...page, html: await keyStep.text() };
}

describe("the consent form", () => {
  it("writes nothing but the store's epoch for thousands of anonymous page loads and key steps", async () => {
    const flow = await startFlow(server.origin);
    watched.written.length = 0;
    // undici's request, lighter than fetch: 1,000 pages, each answered once (no key, a forged token, a
    // denial, and now and then a key the API refuses), 2,000 requests in all.
    const answers = [
      "key_missing",
      "csrf",
      "deny",
      "key_missing",
      "csrf",
      "deny",
      "key_missing",
      "csrf",
      "wrong",
    ];
    const statuses: Record<string, number[]> = {};
    const one = async (i: number) => {
      const page = await request(flow.authorizationUrl);
      const html = await page.body.text();
      const cookie = String(page.headers["set-cookie"]).split(";")[0] as string;
      const answer = answers[i % answers.length] as string;
      const fields = {
        request: fieldOf(html, "request"),
        csrf: answer === "csrf" ? "forged" : fieldOf(html, "csrf"),
        step: answer === "deny" ? "deny" : "key",
        workspace_key: answer === "wrong" ? "wrong-key" : "",
      };
      const posted = await request(`${server.origin}/authorize`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", cookie, origin: server.origin },
        body: new URLSearchParams(fields).toString(),
      });
      await posted.body.dump();
      statuses[answer] = [...new Set([...(statuses[answer] ?? []), page.statusCode, posted.statusCode])];
    };
    for (let batch = 0; batch < 1000; batch += 100)
      await Promise.all(Array.from({ length: 100 }, (_, i) => one(batch + i)));
    expect(statuses).toEqual({
      key_missing: [200, 400],
      csrf: [200, 403],
      deny: [200, 303],
      wrong: [200, 400],
    });
    // One key for all of them: the store's epoch, made by the first page (state/epoch.ts).
    expect(watched.written).toEqual(["epoch"]);
    // A whole sign-in then writes the consent's mark, then its code: nothing before the person allows.
    watched.written.length = 0;
    const allowed = await postConsent(
      server.origin,
      await choicesPage(server.origin, flow.authorizationUrl),
      allowFields,
    );
    expect(allowed.status).toBe(303);
    expect(watched.written.map((key) => key.split(":").slice(0, 2).join(":"))).toEqual([
      "oauth:consent",
      "oauth:code",
    ]);
  });

  it("carries the key sealed: neither the page nor any part of its form holds it readably", async () => {
    const flow = await startFlow(server.origin);
    const choices = await choicesPage(server.origin, flow.authorizationUrl);
    expect(choices.html).not.toContain(SANDBOX_API_KEY);
    const sealed = fieldOf(choices.html, "request");
    expect(sealed.split(".")).toHaveLength(5); // a compact JWE
    for (const part of sealed.split("."))
      expect(Buffer.from(part, "base64url").toString("latin1")).not.toContain(SANDBOX_API_KEY);
    const opened = await openForm(keys, server.origin, sealed);
    expect("form" in opened && opened.form.key).toEqual({ workspace: SANDBOX_API_KEY });
  });

  it("refuses an allow posted again, one after the other or at once", async () => {
    const flow = await startFlow(server.origin);
    const choices = await choicesPage(server.origin, flow.authorizationUrl);
    const first = await postConsent(server.origin, choices, allowFields);
    expect(first.status).toBe(303);
    const again = await postConsent(server.origin, choices, allowFields);
    expect(again.status).toBe(409);
    expect(await again.text()).toContain("This sign-in form was already answered.");
    const racing = await choicesPage(server.origin, (await startFlow(server.origin)).authorizationUrl);
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => postConsent(server.origin, racing, allowFields)),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([303, 409, 409, 409, 409, 409, 409, 409]);
  });

  it("refuses every form shown before the store lost its marks (a restart): no second code, start again", async () => {
    // A store that can be replaced by an empty one: Redis restarted without persistence, or a new process.
    let inner = memoryStore();
    const store: SharedStore = {
      get: (key) => inner.get(key),
      set: (key, value, ttl) => inner.set(key, value, ttl),
      setIfAbsent: (key, value, ttl) => inner.setIfAbsent(key, value, ttl),
      take: (key) => inner.take(key),
      swap: (key, expected, value, ttl) => inner.swap(key, expected, value, ttl),
      increment: (key, ttl) => inner.increment(key, ttl),
      delete: (key) => inner.delete(key),
      close: () => inner.close(),
    };
    const restartable = await startOAuth({ store, sandbox: server.sandbox });
    try {
      const answered = await choicesPage(
        restartable.origin,
        (await startFlow(restartable.origin)).authorizationUrl,
      );
      const open = await choicesPage(
        restartable.origin,
        (await startFlow(restartable.origin)).authorizationUrl,
      );
      const first = await postConsent(restartable.origin, answered, allowFields);
      expect(first.status).toBe(303);
      inner = memoryStore();
      for (const page of [answered, open]) {
        const again = await postConsent(restartable.origin, page, allowFields);
        expect(again.status).toBe(409);
        expect(again.headers.get("location")).toBeNull();
        expect(await again.text()).toContain("Start the sign-in again from your application.");
      }
      // A sign-in started after the restart goes through.
      const fresh = await choicesPage(
        restartable.origin,
        (await startFlow(restartable.origin)).authorizationUrl,
      );
      expect((await postConsent(restartable.origin, fresh, allowFields)).status).toBe(303);
    } finally {
      await restartable.close();
    }
  });

  it("refuses an expired form, an altered one, one sealed under another secret, and a token posted as one", async () => {
    const flow = await startFlow(server.origin);
    const choices = await choicesPage(server.origin, flow.authorizationUrl);
    const sealed = fieldOf(choices.html, "request");
    const opened = await openForm(keys, server.origin, sealed);
    if (!("form" in opened)) throw new Error("the page's own form did not open");
    const past = Math.floor(Date.now() / 1000) - 1;
    const expired = await sealForm(keys, server.origin, opened.form, past);
    const parts = sealed.split(".");
    const body = parts[3] as string;
    parts[3] = `${body[0] === "A" ? "B" : "A"}${body.slice(1)}`;
    const foreign = await sealForm(
      new Keyring(["another-secret-of-thirty-two-characters!!"]),
      server.origin,
      opened.form,
      opened.expiresAt,
    );
    const token = (
      await mintAccessToken(
        keys,
        { issuer: server.origin, resource: `${server.origin}/mcp` },
        { grantId: "g", clientId: flow.clientId, credentials: { workspaceApiKey: "k", scopes: [] } },
        600,
      )
    ).token;
    const withForm = (form: string) => ({ ...choices, html: choices.html.replace(sealed, form) });
    for (const form of [expired, parts.join("."), foreign, token]) {
      const answer = await postConsent(server.origin, withForm(form), allowFields);
      expect(answer.status).toBe(403);
      expect(answer.headers.get("location")).toBeNull();
      expect(await answer.text()).toContain(FORM_REFUSED);
    }
    expect(auditLines().filter((line) => line.event === "signin_refused")).toEqual([
      { event: "signin_refused", outcome: "refused", reason: "form_expired" },
      ...Array.from({ length: 3 }, () => ({
        event: "signin_refused",
        outcome: "refused",
        reason: "form_invalid",
      })),
    ]);
    // The page's own form still works.
    expect((await postConsent(server.origin, choices, allowFields)).status).toBe(303);
  });

  it("takes a form only with its own page's cookie", async () => {
    const flow = await startFlow(server.origin);
    const [one, two] = [
      await choicesPage(server.origin, flow.authorizationUrl),
      await openConsent(flow.authorizationUrl),
    ];
    const crossed = await postConsent(server.origin, { ...one, cookie: two.cookie }, allowFields);
    expect(crossed.status).toBe(403);
    expect(await crossed.text()).toContain(FORM_REFUSED);
  });

  it("lets two sign-ins in two tabs each finish, with a code each", async () => {
    const flow = await startFlow(server.origin);
    const tabs = [await openConsent(flow.authorizationUrl), await openConsent(flow.authorizationUrl)];
    expect(tabs[0]?.cookie.split("=")[0]).not.toBe(tabs[1]?.cookie.split("=")[0]);
    // A browser sends both cookies with each post, the two steps of the two tabs interleaved.
    const cookie = tabs.map((tab) => tab.cookie).join("; ");
    const keySteps = await Promise.all(
      tabs.map((tab) =>
        postConsent(server.origin, { ...tab, cookie }, { step: "key", workspace_key: SANDBOX_API_KEY }),
      ),
    );
    const allowed = await Promise.all(
      keySteps.map(async (step, i) =>
        postConsent(
          server.origin,
          { ...(tabs[i] as ConsentPage), cookie, html: await step.text() },
          allowFields,
        ),
      ),
    );
    const codes = allowed.map((answer) =>
      new URL(answer.headers.get("location") ?? "").searchParams.get("code"),
    );
    expect(codes.every((code) => /^[\w-]{43}$/.test(code ?? ""))).toBe(true);
    expect(codes[0]).not.toBe(codes[1]);
    for (const code of codes) {
      const exchanged = await postForm(`${server.origin}/token`, {
        grant_type: "authorization_code",
        code: code as string,
        redirect_uri: flow.redirectUri,
        code_verifier: flow.verifier,
        client_id: flow.clientId,
      });
      expect(exchanged.status).toBe(200);
    }
  });

  it("allows five keys along one page's forms, then asks to start again", async () => {
    const flow = await startFlow(server.origin);
    let page = await openConsent(flow.authorizationUrl);
    for (let attempt = 1; attempt <= 5; attempt++) {
      const refused = await postConsent(server.origin, page, {
        step: "key",
        workspace_key: `wrong-${attempt}`,
      });
      expect(refused.status).toBe(400);
      page = { ...page, html: await refused.text() };
    }
    const sixth = await postConsent(server.origin, page, { step: "key", workspace_key: SANDBOX_API_KEY });
    expect(sixth.status).toBe(429);
    expect(await sixth.text()).toContain("5 keys were tried on this page.");
  });
});
