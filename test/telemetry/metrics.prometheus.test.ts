// Prometheus for real (`npm run test:telemetry`, needs Debian's prometheus): the built server with
// --metrics-port, called by clients of both eras against the sandbox (through a proxy that answers one
// 503, so a retry shows), scraped by Prometheus; its HTTP API then answers for the tool called and for
// every query of deploy/grafana-dashboard.json, and promtool accepts the endpoint's text.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttpTransport,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { CLI, childEnv, freePort } from "../helpers.js";

const PROMETHEUS = "/usr/bin/prometheus";
const PROMTOOL = "/usr/bin/promtool";
const MISSING =
  "prometheus is not installed, and this test needs it: install it (Debian: apt-get install -y prometheus; .ci/run does this)";
const DASHBOARD = new URL("../../deploy/grafana-dashboard.json", import.meta.url);
/** The path whose first request the proxy answers with 503: the call to it is retried once. */
const FLAKY_PATH = "/v2/geo/business/projects";
/** A project no key can see: the sandbox answers 403, an upstream error the dashboard shows. */
const UNKNOWN_PROJECT = "0b7c1f52-9d3e-4a61-8f2b-6c4d5e7f8a90";

let sandbox: Sandbox;
let proxy: Server;
let proxyUrl: string;
let mcp: ChildProcess;
let mcpUrl: URL;
let metricsUrl: URL;
let prometheus: ChildProcess;
let prometheusUrl: string;
let dataDir: string;

/** Forwards to the sandbox, except the first request for FLAKY_PATH: 503, as a busy API would. */
async function startProxy(): Promise<void> {
  let flaked = false;
  const target = new URL(sandbox.url);
  proxy = createServer((req, res) => {
    if (!flaked && req.url === FLAKY_PATH) {
      flaked = true;
      req.resume();
      res.writeHead(503, { "content-type": "application/json" }).end('{"detail":"busy"}');
      return;
    }
    const forward = httpRequest(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
}

/** The built server over HTTP with --metrics-port 0; resolves once both its URLs are logged. */
async function startServer(): Promise<void> {
  const base = (url: string) => `${proxyUrl}${new URL(url).pathname}`.replace(/\/$/, "");
  mcp = spawn(process.execPath, [CLI, "--transport", "http", "--port", "0", "--metrics-port", "0"], {
    env: childEnv({
      WORKSPACE_BASE_URL: base(sandbox.workspaceBaseUrl),
      ANALYTICS_BASE_URL: base(sandbox.analyticsBaseUrl),
      WORKSPACE_API_KEY: sandbox.apiKey,
      WORKSPACE_PROJECT_ID: sandbox.workspaceProjectId,
      ANALYTICS_PROJECT_ID: sandbox.analyticsProjectId,
    }),
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  await new Promise<void>((resolve, reject) => {
    mcp.stderr!.on("data", (chunk) => {
      log += chunk;
      const metrics = log.match(/"metrics_url":"([^"]+)"/);
      const listening = log.match(/"message":"listening","url":"([^"]+)"/);
      if (metrics && listening) {
        metricsUrl = new URL(metrics[1]!);
        mcpUrl = new URL(listening[1]!);
        resolve();
      }
    });
    mcp.once("exit", () => reject(new Error(`server exited: ${log}`)));
  });
}

async function startPrometheus(): Promise<void> {
  dataDir = mkdtempSync(join(tmpdir(), "prometheus-test-"));
  const config = join(dataDir, "prometheus.yml");
  writeFileSync(
    config,
    [
      "global:",
      "  scrape_interval: 1s",
      "scrape_configs:",
      "  - job_name: agent-workspace-mcp",
      `    metrics_path: ${metricsUrl.pathname}`,
      "    static_configs:",
      `      - targets: ["${metricsUrl.host}"]`,
      "",
    ].join("\n"),
  );
  const port = await freePort();
  prometheusUrl = `http://127.0.0.1:${port}`;
  prometheus = spawn(
    PROMETHEUS,
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(dataDir, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    { stdio: "ignore" },
  );
  // Ready within 30 s (hooks cannot use expect.poll).
  for (let tries = 0; tries < 120; tries++) {
    if ((await fetch(`${prometheusUrl}/-/ready`).catch(() => undefined))?.status === 200) return;
    await sleep(250);
  }
  throw new Error("prometheus did not become ready within 30 s");
}

/** The series a PromQL query returns now. */
async function query(expr: string): Promise<{ metric: Record<string, string> }[]> {
  const response = await fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(expr)}`);
  const body = (await response.json()) as {
    status: string;
    data: { result: { metric: Record<string, string> }[] };
  };
  expect(body.status, expr).toBe("success");
  return body.data.result;
}

/** Calls of both eras: tools that answer, one retried, one refused upstream; sessions closed and open. */
async function makeCalls(): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(mcpUrl);
  const legacy = new Client({ name: "prometheus-legacy", version: "1.0.0" });
  await legacy.connect(transport);
  await legacy.callTool({ name: "whoami", arguments: {} });
  await legacy.callTool({ name: "tasks_query", arguments: {} });
  expect((await legacy.callTool({ name: "geo_projects", arguments: {} })).isError).toBeUndefined();
  const refused = await legacy.callTool({ name: "tasks_query", arguments: { project_id: UNKNOWN_PROJECT } });
  expect(refused.isError).toBe(true);
  await transport.terminateSession();
  await legacy.close();

  const modern = new ModernClient(
    { name: "prometheus-modern", version: "1.0.0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  await modern.connect(new ModernHttpTransport(mcpUrl));
  await modern.callTool({ name: "whoami", arguments: {} });
  await modern.close();

  // A session left open, as the sessions panel shows.
  const open = new Client({ name: "prometheus-open", version: "1.0.0" });
  await open.connect(new StreamableHTTPClientTransport(mcpUrl));
  return open;
}

let openSession: Client | undefined;
beforeAll(async () => {
  if (!existsSync(PROMETHEUS) || !existsSync(PROMTOOL)) throw new Error(MISSING);
  sandbox = await startSandbox();
  await startProxy();
  await startServer();
  openSession = await makeCalls();
  await startPrometheus();
});

afterAll(async () => {
  await openSession?.close();
  for (const child of [prometheus, mcp]) {
    if (child && child.exitCode === null) {
      child.kill("SIGTERM");
      await once(child, "exit");
    }
  }
  await new Promise((resolve) => proxy?.close(resolve));
  await sandbox?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe("the Prometheus endpoint, scraped by Prometheus", () => {
  it("serves only /metrics on its own listener, apart from /mcp", async () => {
    expect(metricsUrl.hostname).toBe("127.0.0.1");
    expect(metricsUrl.port).not.toBe(mcpUrl.port);
    expect((await fetch(new URL("/mcp", metricsUrl))).status).toBe(404);
    expect((await fetch(new URL("/metrics", mcpUrl))).status).toBe(404);
  });

  it("passes promtool check metrics", async () => {
    const text = await (await fetch(metricsUrl)).text();
    const check = spawnSync(PROMTOOL, ["check", "metrics"], { input: text, encoding: "utf8" });
    expect(`${check.stdout}${check.stderr}`).toBe("");
    expect(check.status).toBe(0);
  });

  it("has mcp_server_operation_duration series of the tools called, by tool and outcome", async () => {
    await expect
      .poll(() => query('mcp_server_operation_duration_count{gen_ai_tool_name="whoami"}'), {
        timeout: 20_000,
      })
      .toHaveLength(2);
    const whoami = await query('mcp_server_operation_duration_count{gen_ai_tool_name="whoami"}');
    expect(whoami.map((series) => series.metric.mcp_protocol_version).sort()).toEqual([
      "2025-11-25",
      "2026-07-28",
    ]);
    const refused = await query(
      'mcp_server_operation_duration_count{gen_ai_tool_name="tasks_query", error_type="tool_error"}',
    );
    expect(refused).toHaveLength(1);
    const retries = await query("agent_workspace_upstream_retries_total");
    expect(
      retries.map((series) => [series.metric.url_template, series.metric.agent_workspace_retry_reason]),
    ).toEqual([[FLAKY_PATH, "503"]]);
  });

  it("answers every query of the Grafana dashboard with series", async () => {
    const dashboard = JSON.parse(readFileSync(DASHBOARD, "utf8")) as {
      panels: { title: string; targets: { expr: string }[] }[];
    };
    const exprs = dashboard.panels.flatMap((panel) =>
      panel.targets.map((target) => [panel.title, target.expr]),
    );
    expect(exprs.length).toBeGreaterThanOrEqual(8);
    // rate() needs two scrapes of each series inside its window.
    await sleep(3_000);
    for (const [title, expr] of exprs) {
      await expect
        .poll(async () => (await query(expr!)).length, { timeout: 20_000, message: title })
        .toBeGreaterThan(0);
    }
  });
});
