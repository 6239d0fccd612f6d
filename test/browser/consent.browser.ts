// The consent page in a real browser (Debian's chromium, driven by playwright-core), JavaScript off as a
// cautious person might have it: the built server on --demo --oauth, a client registered by DCR whose
// redirect URI is a local callback server. In light and dark: the page loads nothing but itself, a wrong
// key is refused on the page (an alert, no code), the right one leads to the choices, and Allow sends the
// browser back to the client with a code, the state and the issuer. Then the identity lines as a person
// reads them, for a client with a metadata document, a registered one, a look-alike and a mixed-script
// name (screenshots go to CONSENT_SCREENSHOT_DIR when it is set, to look at by eye).
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Keyring, signClientId } from "../../src/oauth/seal.js";
import { SANDBOX_API_KEY } from "../../src/sandbox/index.js";
import { listeningUrl } from "../every-tool.js";
import {
  type OAuthHarness,
  startFlow,
  startMetadataHost,
  startOAuth,
  TEST_SECRET,
} from "../oauth-harness.js";
import { launchChromium, spawnDemoServer } from "./chromium.js";

let server: ChildProcess;
let origin: string;
let callback: Server;
let callbackUrl: string;
const received: URLSearchParams[] = [];
let profile: string;

beforeAll(async () => {
  server = spawnDemoServer(["--oauth"]);
  origin = new URL(await listeningUrl(server)).origin;
  callback = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (url.pathname !== "/callback") return res.writeHead(404).end(); // the browser's favicon.ico
    received.push(url.searchParams);
    res
      .writeHead(200, { "content-type": "text/html" })
      .end("<!doctype html><title>back</title><p>Signed in.</p>");
  });
  await new Promise<void>((resolve) => callback.listen(0, "127.0.0.1", resolve));
  callbackUrl = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
  profile = mkdtempSync(join(tmpdir(), "consent-chromium-"));
});

afterAll(async () => {
  server?.kill();
  await new Promise((resolve) => callback?.close(resolve));
  if (profile) rmSync(profile, { recursive: true, force: true });
});

async function browser(colorScheme: "light" | "dark"): Promise<BrowserContext> {
  return launchChromium(join(profile, colorScheme), { javaScriptEnabled: false, colorScheme });
}

describe.each(["light", "dark"] as const)("the consent page, %s", (scheme) => {
  it("refuses a wrong key on the page, accepts the right one, and sends the browser back with a code", async () => {
    const flow = await startFlow(origin, { redirectUri: callbackUrl, name: "Browser assistant" });
    const before = received.length;
    const context = await browser(scheme);
    const requested: string[] = [];
    context.on("request", (request) => requested.push(request.url()));
    try {
      const page = context.pages()[0] ?? (await context.newPage());
      await page.goto(flow.authorizationUrl.href);
      await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toBe(
        `An application returning to ${new URL(callbackUrl).host} asks to use your workspace`,
      );
      // The theme is the system's: dark text on light, or light on dark.
      const background = await page.evaluate("getComputedStyle(document.body).backgroundColor");
      expect(background).toBe(scheme === "light" ? "rgb(247, 247, 248)" : "rgb(20, 20, 23)");

      // Keyboard only: the key field has focus, Enter submits the form's first button (Check key).
      await page.keyboard.type("wrong-key");
      await page.keyboard.press("Enter");
      await page.waitForLoadState();
      await expect(page.getByRole("alert").textContent()).resolves.toBe(
        "The workspace API refused this key (401). Check it and try again.",
      );
      expect(received).toHaveLength(before);

      await page.getByLabel("Workspace API key").fill(SANDBOX_API_KEY);
      await page.getByRole("button", { name: "Check key" }).click();
      await page.waitForLoadState();
      const dir = process.env.CONSENT_SCREENSHOT_DIR;
      if (dir) await page.screenshot({ path: join(dir, `choices-${scheme}.png`), fullPage: true });
      await page.getByLabel("Default workspace project").selectOption({ index: 1 });
      // Nothing asked for: every scope is offered, ticked; the person keeps reading and leaves out analytics.
      await expect(page.getByLabel("Add comments to tasks (tasks_comments)").isChecked()).resolves.toBe(true);
      await page.getByLabel("Read your visibility analytics").uncheck();
      await page.getByRole("button", { name: "Allow" }).click();
      await page.waitForURL((url) => url.href.startsWith(callbackUrl));
      expect(received.length).toBe(before + 1);
      const answer = received.at(-1) as URLSearchParams;
      expect(answer.get("code")).toMatch(/^[\w-]{43}$/);
      expect(answer.get("state")).toBe("state-1");
      expect(answer.get("iss")).toBe(origin);
      // Nothing but the page's own origin and the client's callback was asked for.
      for (const url of requested)
        expect([origin, new URL(callbackUrl).origin]).toContain(new URL(url).origin);
    } finally {
      await context.close();
    }
  });
});

describe("the consent page's identity lines", () => {
  let inProcess: OAuthHarness;
  let documents: Awaited<ReturnType<typeof startMetadataHost>>;
  beforeAll(async () => {
    // In process, so that the server trusts the test certificate of the metadata documents' host.
    inProcess = await startOAuth();
    documents = await startMetadataHost((path, res, host) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          client_id: `${host}${path}`,
          client_name: "Notes helper",
          redirect_uris: [callbackUrl],
        }),
      );
    });
  });
  afterAll(async () => {
    await documents?.close();
    await inProcess?.close();
  });

  /** What a person reads at the top of the page: heading, the name's line, warnings, what was checked. */
  async function readIdentity(page: Page, url: URL, shot: string) {
    await page.goto(url.href);
    const warnings = page.getByRole("list", { name: "Warnings about this application" });
    const read = {
      heading: await page.getByRole("heading", { level: 1 }).innerText(),
      claim: await page.locator("p.claim").innerText(),
      ...((await page.locator("p.host").count()) === 0
        ? {}
        : { host: await page.locator("p.host").innerText() }),
      warnings: (await warnings.count()) === 0 ? [] : await warnings.getByRole("listitem").allInnerTexts(),
      checked: await page.locator("p.checked").innerText(),
    };
    const dir = process.env.CONSENT_SCREENSHOT_DIR;
    if (dir) await page.screenshot({ path: join(dir, `${shot}.png`), fullPage: true });
    return read;
  }
  async function identityOf(url: URL, shot: string) {
    return inBrowser((page) => readIdentity(page, url, shot));
  }
  async function inBrowser<T>(use: (page: Page) => Promise<T>): Promise<T> {
    const context = await browser("light");
    try {
      return await use(context.pages()[0] ?? (await context.newPage()));
    } finally {
      await context.close();
    }
  }
  const back = () => new URL(callbackUrl).host;
  const registered = async (name: string, redirectUri = callbackUrl) =>
    (await startFlow(inProcess.origin, { redirectUri, name })).authorizationUrl;
  const LOOKS_LIKE = (name: string) =>
    `The name looks like that of ${name}, a known assistant, but nothing shows this application is ${name}. Continue only if you started this sign-in from ${name} yourself, just now.`;
  const CLAIMS = "The name claims to be verified or official. This server verifies no application's name.";

  it("a client with a metadata document: its host first, the name as its claim", async () => {
    const url = await registered("unused");
    url.searchParams.set("client_id", `${documents.origin}/client.json`);
    await expect(identityOf(url, "metadata-document")).resolves.toEqual({
      heading: `An application at ${new URL(documents.origin).host} asks to use your workspace`,
      claim: "It calls itself \u201cNotes helper\u201d. That name is its own claim: nobody checked it.",
      warnings: [],
      checked: `Checked: its description is published at ${documents.origin}/client.json. After you answer, you are sent back to ${callbackUrl}.`,
    });
  });

  it("a registered client: where it returns first, the name as its claim", async () => {
    await expect(identityOf(await registered("Browser assistant"), "registered")).resolves.toEqual({
      heading: `An application returning to ${back()} asks to use your workspace`,
      claim: "It calls itself \u201cBrowser assistant\u201d. That name is its own claim: nobody checked it.",
      warnings: [],
      checked: `Checked: only where the code is sent after you answer: ${callbackUrl}. Any application can register under any name.`,
    });
  });

  it("a name like a known assistant's is flagged", async () => {
    const read = await identityOf(await registered("Claude"), "look-alike");
    expect(read.warnings).toEqual([LOOKS_LIKE("Claude")]);
  });

  it("a name in mixed scripts, claiming a verification, is flagged for each", async () => {
    const read = await identityOf(await registered("\u0421laude (verified)"), "mixed-script");
    expect(read.claim).toBe(
      "It calls itself \u201c\u0421laude (verified)\u201d. That name is its own claim: nobody checked it.",
    );
    expect(read.warnings).toEqual([
      LOOKS_LIKE("Claude"),
      "The name mixes letters of different scripts (Cyrillic, Latin), a way to imitate another name.",
      CLAIMS,
    ]);
  });

  it("look-alike letters, scripts mixed inside a word, and claimed verifications in other forms are flagged", async () => {
    const mixed =
      "The name mixes letters of different scripts (Latin, Katakana), a way to imitate another name.";
    const cases: [string, string[]][] = [
      ["C\u0142aude", [LOOKS_LIKE("Claude")]],
      ["\u1d04\u029f\u1d00\u1d1c\u1d05\u1d07", [LOOKS_LIKE("Claude")]],
      ["Clau\u0111e", [LOOKS_LIKE("Claude")]],
      ["Curso\ua785", [LOOKS_LIKE("Cursor")]],
      ["Clau\u30c6de", [LOOKS_LIKE("Claude"), mixed]],
      ["VerifiedConnector", [CLAIMS]],
      ["OfficialWorkspaceApp", [CLAIMS]],
      ["Connecteur v\u00e9rifi\u00e9", [CLAIMS]],
      ["Workspace Sync \u221a", [CLAIMS]],
      ["Workspace Sync \u{1f5f9}", [CLAIMS]],
    ];
    const read = await inBrowser(async (page) => {
      const found: [string, string[]][] = [];
      for (const [i, [name]] of cases.entries())
        found.push([name, (await readIdentity(page, await registered(name), `disguise-${i}`)).warnings]);
      return found;
    });
    expect(read).toEqual(cases);
  });

  it("names a letter off an assistant's, and claims in more words, languages and marks, are flagged", async () => {
    const cases: [string, string[]][] = [
      ["Cluade", [LOOKS_LIKE("Claude")]],
      ["ChatGTP", [LOOKS_LIKE("ChatGPT")]],
      ["Cladue Desktop", [LOOKS_LIKE("Claude")]],
      ["Curosr", [LOOKS_LIKE("Cursor")]],
      ["Antrhopic Assistant", [LOOKS_LIKE("Claude")]],
      ["Claud", [LOOKS_LIKE("Claude")]],
      ["Validated Connector", [CLAIMS]],
      ["Vetted App", [CLAIMS]],
      ["Audited App", [CLAIMS]],
      ["\u041f\u0440\u043e\u0432\u0435\u0440\u0435\u043d\u043e", [CLAIMS]], // Проверено
      ["App \u237b", [CLAIMS]],
      ["App \u{1f197}", [CLAIMS]],
    ];
    const read = await inBrowser(async (page) => {
      const found: [string, string[]][] = [];
      for (const [i, [name]] of cases.entries())
        found.push([name, (await readIdentity(page, await registered(name), `variant-${i}`)).warnings]);
      return found;
    });
    expect(read).toEqual(cases);
  });

  it("a redirect handed to a browser, registered before it was refused: an error page, no choices", async () => {
    const redirect = "microsoft-edge:https://evil.example/cb";
    const url = await registered("Notes");
    url.searchParams.set(
      "client_id",
      await signClientId(new Keyring([TEST_SECRET]), { r: [redirect], n: "Notes", m: "none" }),
    );
    url.searchParams.set("redirect_uri", redirect);
    const read = await inBrowser(async (page) => {
      const answer = await page.goto(url.href);
      return {
        status: answer?.status(),
        heading: await page.getByRole("heading", { level: 1 }).innerText(),
        alert: await page.getByRole("alert").innerText(),
        buttons: await page.getByRole("button").count(),
      };
    });
    expect(read).toEqual({
      status: 400,
      heading: "Sign-in cannot continue",
      alert: "The address to send you back to is not one the application registered.",
      buttons: 0,
    });
  });

  it("a registered client named like an assistant, on that assistant's host: flagged, with the whole address", async () => {
    const redirect = "https://chatgpt.com/aip/g-attacker123/oauth/callback";
    await expect(identityOf(await registered("ChatGPT", redirect), "assistant-host")).resolves.toEqual({
      heading: "An application returning to chatgpt.com asks to use your workspace",
      claim: "It calls itself \u201cChatGPT\u201d. That name is its own claim: nobody checked it.",
      warnings: [LOOKS_LIKE("ChatGPT")],
      checked: `Checked: only where the code is sent after you answer: ${redirect}. Any application can register under any name.`,
    });
  });

  it("a long host: the registrable domain leads, the full host wraps inside the card, its end kept", async () => {
    const host = `claude.ai.${["a", "b", "c"].map((c) => c.repeat(63)).join(".")}.attacker.example`;
    const read = await inBrowser(async (page) => {
      const identity = await readIdentity(page, await registered("Acme", `https://${host}/cb`), "long-host");
      const full = await page.locator("p.host").innerText();
      // Nothing sticks out of the card, and the page does not scroll sideways.
      const fits = await page.evaluate(`(() => {
        const card = document.querySelector("main").getBoundingClientRect();
        const inside = [...document.querySelectorAll("main *")].every((e) => e.getBoundingClientRect().right <= card.right + 0.5);
        return inside && document.documentElement.scrollWidth <= document.documentElement.clientWidth;
      })()`);
      return { heading: identity.heading, full, fits };
    });
    expect(read.heading).toBe("An application returning to attacker.example asks to use your workspace");
    expect(read.full.replace(/\s/g, "")).toMatch(
      /^Fulladdress:claude\.ai\.a+\u2026[abc.]+\.attacker\.example$/,
    );
    expect(read.fits).toBe(true);
  });

  it("a reverse-domain app scheme: an app on this device first, the domain it names only as its claim", async () => {
    await expect(
      identityOf(await registered("Notes", "com.example.notes:/cb"), "reverse-domain"),
    ).resolves.toEqual({
      heading: "An app on this device asks to use your workspace",
      host: "Its scheme com.example.notes, naming example.com, is the app's own claim: nobody checked it.",
      claim: "It calls itself \u201cNotes\u201d. That name is its own claim: nobody checked it.",
      warnings: [],
      checked:
        "Checked: nothing about who it is. After you answer, the code goes to an app on this device that handles com.example.notes: addresses (com.example.notes:/cb). Any application can register under any name.",
    });
  });

  it("an app scheme naming an assistant's host: flagged as a look-alike is", async () => {
    await expect(identityOf(await registered("Acme", "ai.x:/cb"), "scheme-assistant-host")).resolves.toEqual({
      heading: "An app on this device asks to use your workspace",
      host: "Its scheme ai.x, naming x.ai, is the app's own claim: nobody checked it.",
      claim: "It calls itself \u201cAcme\u201d. That name is its own claim: nobody checked it.",
      warnings: [
        "The app's scheme ai.x names x.ai, an address of Grok, a known assistant, but nothing shows this app is Grok. Continue only if you started this sign-in from Grok yourself, just now.",
      ],
      checked:
        "Checked: nothing about who it is. After you answer, the code goes to an app on this device that handles ai.x: addresses (ai.x:/cb). Any application can register under any name.",
    });
  });

  it("a custom scheme that reads like a host: an app on this device, flagged", async () => {
    await expect(identityOf(await registered("Acme", "claude.ai://x"), "app-scheme")).resolves.toEqual({
      heading: "An app on this device asks to use your workspace",
      host: "Its scheme claude.ai is the app's own claim: nobody checked it.",
      claim: "It calls itself \u201cAcme\u201d. That name is its own claim: nobody checked it.",
      warnings: [
        "The app's scheme claude.ai reads like a web address, but it is none: any app on this device can claim it.",
        "The app's scheme names Claude, but any app on this device can claim the scheme claude.ai.",
      ],
      checked:
        "Checked: nothing about who it is. After you answer, the code goes to an app on this device that handles claude.ai: addresses (claude.ai://x). Any application can register under any name.",
    });
  });
});
