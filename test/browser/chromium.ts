// What the browser tier's files share: Debian's chromium launched by playwright-core (never a downloaded
// browser), the built server started on --demo over HTTP, an MCP client that offers the report view's
// MIME type, and the host page (host/host.ts, bundled by esbuild) that mounts the view.
import { type ChildProcess, spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { build } from "esbuild";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { CLI, childEnv } from "../helpers.js";

const CHROMIUM = "/usr/bin/chromium";
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--no-first-run",
  "--disable-background-networking",
];
export const MIME = "text/html;profile=mcp-app";

type LaunchOptions = NonNullable<Parameters<typeof chromium.launchPersistentContext>[1]>;

/** Chromium, headless, on the profile folder `profile`; `extraArgs` after the common flags. */
export function launchChromium(
  profile: string,
  options: Omit<LaunchOptions, "executablePath" | "args" | "headless"> = {},
  extraArgs: string[] = [],
): Promise<BrowserContext> {
  return chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    args: [...CHROMIUM_ARGS, ...extraArgs],
    headless: true,
    ...options,
  });
}

/** The built CLI on --demo over HTTP on a free port, `flags` after; its URL comes from listeningUrl. */
export function spawnDemoServer(flags: string[], env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, [CLI, "--demo", "--transport", "http", "--port", "0", ...flags], {
    env: childEnv(env),
    stdio: ["ignore", "ignore", "pipe"],
  });
}

/** SDK v2's client of the server at `url`, offering the report view's MIME type, connected. */
export async function viewClient(url: string): Promise<Client> {
  const client = new Client(
    { name: "browser-test-host", version: "1.0.0" },
    { capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [MIME] } } } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** The host page and its bundled script served on 127.0.0.1; `css` goes before the iframe's rule. */
export async function hostPage(css = ""): Promise<{ server: Server; url: string }> {
  const bundle = await build({
    entryPoints: [new URL("host/host.ts", import.meta.url).pathname],
    bundle: true,
    format: "esm",
    platform: "browser",
    write: false,
    logLevel: "warning",
  });
  const script = bundle.outputFiles[0]!.text;
  const page = `<!doctype html><html><head><meta charset="utf-8"><title>host</title><style>${css}iframe{border:0;width:900px;display:block}</style></head><body><script type="module" src="/host.js"></script></body></html>`;
  const http = createServer((req, res) => {
    const js = req.url === "/host.js";
    res.writeHead(200, { "content-type": js ? "text/javascript" : "text/html" });
    res.end(js ? script : page);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  return { server: http, url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/` };
}

/**
 * The host page at `url` in `context`'s first tab, ready to mount the view: its page errors and console
 * errors go to `pageErrors` (an SVG attribute the browser cannot use, NaN, is a console error, not a
 * page error), and the bridge's tools/call to `callTool`.
 */
export async function openHost(
  context: BrowserContext,
  url: string,
  pageErrors: string[],
  callTool: (params: { name: string; arguments?: Record<string, unknown> }) => Promise<unknown>,
): Promise<Page> {
  const page = context.pages()[0] ?? (await context.newPage());
  page.on("pageerror", (error) => pageErrors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") pageErrors.push(message.text());
  });
  await page.exposeFunction("hostCallTool", callTool);
  await page.goto(url);
  await page.waitForFunction(
    () => typeof (globalThis as unknown as { mountView?: unknown }).mountView === "function",
  );
  return page;
}
