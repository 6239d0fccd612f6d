// The consent page in a real browser (Debian's chromium, driven by playwright-core), JavaScript off as a
// cautious person might have it: the built server on --demo --oauth, a client registered by DCR whose
// redirect URI is a local callback server. In light and dark: the page loads nothing but itself, a wrong
// key is refused on the page (an alert, no code), the right one leads to the choices, and Allow sends the
// browser back to the client with a code, the state and the issuer.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SANDBOX_API_KEY } from "../../src/sandbox/index.js";
import { listeningUrl } from "../every-tool.js";
import { CLI, childEnv } from "../helpers.js";
import { startFlow } from "../oauth-harness.js";

const CHROMIUM = "/usr/bin/chromium";
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--no-first-run",
  "--disable-background-networking",
];

let server: ChildProcess;
let origin: string;
let callback: Server;
let callbackUrl: string;
const received: URLSearchParams[] = [];
let profile: string;

beforeAll(async () => {
  server = spawn(process.execPath, [CLI, "--demo", "--transport", "http", "--port", "0", "--oauth"], {
    env: childEnv(),
    stdio: ["ignore", "ignore", "pipe"],
  });
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
  return chromium.launchPersistentContext(join(profile, colorScheme), {
    executablePath: CHROMIUM,
    args: CHROMIUM_ARGS,
    headless: true,
    javaScriptEnabled: false,
    colorScheme,
  });
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
        "Browser assistant asks to use your workspace",
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
      await page.getByLabel("Default workspace project").selectOption({ index: 1 });
      await page.getByLabel(/Let the assistant add comments/).check();
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
