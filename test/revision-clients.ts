// The clients of each protocol revision, and what the prompts and the report view (MCP Apps) must show
// to any of them: shared by test/protocol/revisions.test.ts, whose every client serves each subject in
// turn (what every tool must show is in test/every-tool.ts).
import { Client as ModernClient } from "@modelcontextprotocol/client";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { expect } from "vitest";
import { PROMPTS } from "../src/prompts/definitions.js";
import type { Sandbox } from "../src/sandbox/index.js";
import { REPORT_VIEW_TOOLS, REPORT_VIEW_URI } from "../src/views/report-view.js";
import { callsIn, promptText, WORKFLOW_CASES } from "./prompts/prompt-helpers.js";

export const MODERN = "2026-07-28";
/** The 2025 revisions before the latest, offered alone by SDK v2's client. */
export const OLDER = ["2025-06-18", "2025-03-26"];

export const VIEW_MIME = "text/html;profile=mcp-app";
/** The client capability that declares MCP Apps. */
export const UI = { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [VIEW_MIME] } } };

type ModernOptions = NonNullable<ConstructorParameters<typeof ModernClient>[1]>;

/** SDK v2's client that speaks 2026-07-28 or nothing (no fallback to initialize). */
export const modernClient = (options: ModernOptions = {}) =>
  new ModernClient(
    { name: "modern", version: "1.0.0" },
    { ...options, versionNegotiation: { mode: { pin: MODERN } } },
  );

/** SDK v2's client on one 2025 revision: the initialize handshake, offering only `version`. */
export const olderClient = (version: string, options: ModernOptions = {}) =>
  new ModernClient(
    { name: `legacy-${version}`, version: "1.0.0" },
    { ...options, supportedProtocolVersions: [version] },
  );

/** SDK 1.x's transport, recording the protocol version the server's initialize answer agreed on. */
function recordingVersion(transport: Transport): { transport: Transport; version: () => string | undefined } {
  let version: string | undefined;
  const recording: Transport = {
    start: () => transport.start(),
    send: (message, options) => transport.send(message, options),
    close: () => transport.close(),
    setProtocolVersion: (value) => transport.setProtocolVersion?.(value),
  };
  transport.onclose = () => recording.onclose?.();
  transport.onerror = (error) => recording.onerror?.(error);
  transport.onmessage = (message: JSONRPCMessage, extra) => {
    const result = (message as { result?: { protocolVersion?: unknown } }).result;
    if (typeof result?.protocolVersion === "string") version ??= result.protocolVersion;
    recording.onmessage?.(message, extra);
  };
  return { transport: recording, version: () => version };
}

export interface ConnectedLegacy {
  client: LegacyClient;
  /** The protocol version its initialize agreed on. */
  version: () => string | undefined;
  close(): Promise<void>;
}

/** SDK 1.x's client (declaring nothing) connected over `transport`. */
export async function connectedLegacy(transport: Transport): Promise<ConnectedLegacy> {
  const client = new LegacyClient({ name: "sdk-1.x", version: "1.0.0" });
  const recorded = recordingVersion(transport);
  await client.connect(recorded.transport);
  return { client, version: recorded.version, close: () => client.close() };
}

/** `client` once connected: begun when called, awaited by the test that takes it. */
export async function connected<T>(client: T, connect: (client: T) => Promise<void>): Promise<T> {
  await connect(client);
  return client;
}

/** What both SDKs' clients offer for prompts, as far as these tests use it. */
export interface PromptClient {
  listPrompts(): Promise<{ prompts: { name: string }[] }>;
  getPrompt(params: {
    name: string;
    arguments?: Record<string, string>;
  }): Promise<{ messages: { content: { type: string; text?: string } }[] }>;
  complete(params: {
    ref: { type: "ref/prompt"; name: string };
    argument: { name: string; value: string };
  }): Promise<{ completion: { values: string[] } }>;
}

const firstLine = (result: Awaited<ReturnType<PromptClient["getPrompt"]>>) => {
  const content = result.messages[0]?.content;
  return content?.type === "text" ? content.text?.split("\n")[0] : undefined;
};

export const completeProject = async (client: PromptClient, prompt: string, value: string) =>
  (await client.complete({ ref: { type: "ref/prompt", name: prompt }, argument: { name: "project", value } }))
    .completion.values;

/** Lists, renders and completes, as the demo's main key sees it. */
export async function exercisePrompts(client: PromptClient, sandbox: Sandbox): Promise<void> {
  const listed = await client.listPrompts();
  expect(listed.prompts.map((prompt) => prompt.name)).toEqual(PROMPTS.map((prompt) => prompt.name));
  const triage = await client.getPrompt({
    name: "task_triage",
    arguments: { project: "Growth Marketing" },
  });
  expect(firstLine(triage)).toBe('Triage of the workspace project "Growth Marketing".');
  const report = await client.getPrompt({
    name: "visibility_report",
    arguments: { project: sandbox.analyticsProjectId, period: "2025-12" },
  });
  expect(firstLine(report)).toBe(
    'Visibility report for the analytics project "Acme" ("https://www.acme.example"): 2025-12-01 to 2025-12-31, against 2025-11-01 to 2025-11-30.',
  );
  expect(await completeProject(client, "visibility_report", "acme")).toEqual(["Acme", "Acme Labs"]);
  expect(await completeProject(client, "task_triage", "")).toEqual(["Growth Marketing", "Platform", "Inbox"]);
  await expect(client.getPrompt({ name: "task_triage", arguments: { project: "Finance" } })).rejects.toThrow(
    'task_triage: no workspace project "Finance" for this API key; whoami lists: Growth Marketing, Platform, Inbox',
  );
}

/** What both SDKs' clients offer of tools, as far as the workflows' checks use it. */
export interface CallingClient extends PromptClient {
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
}

/**
 * Each GEO workflow rendered with each of its cases, and every call it asks for made as written through
 * `client`: none fails, and each answers rows.
 */
export async function exerciseWorkflows(client: CallingClient): Promise<number> {
  let made = 0;
  for (const [name, cases] of Object.entries(WORKFLOW_CASES)) {
    for (const args of cases) {
      const text = promptText(await client.getPrompt({ name, arguments: args }));
      for (const call of callsIn(text)) {
        const answer = (await client.callTool({ name: call.tool, arguments: call.args })) as {
          isError?: boolean;
          structuredContent?: { data?: unknown[] | { rows: unknown[] } };
        };
        expect(answer.isError, `${name}: ${call.tool}`).toBeFalsy();
        // Concise ({columns, rows}) or full (the API's rows), as the server is set.
        const data = answer.structuredContent?.data;
        expect((Array.isArray(data) ? data : data?.rows)?.length, `${name}: ${call.tool}`).toBeGreaterThan(0);
        made += 1;
      }
    }
  }
  return made;
}

/** What both SDKs' clients offer of tools and resources, as far as the report view's checks use it. */
export interface ViewClient {
  listTools(): Promise<{ tools: { name: string; _meta?: { ui?: unknown } }[] }>;
  listResources(): Promise<{ resources: { uri: string }[] }>;
  readResource(params: { uri: string }): Promise<{ contents: { mimeType?: string; text?: string }[] }>;
}

/**
 * SDK v2's client asking the server every time (its response cache neither read nor written, so an
 * answer to an earlier subject's request is not reused), with `meta` added to each request's `_meta`.
 */
export function askingEachTime(client: ModernClient, meta?: Record<string, unknown>): ViewClient {
  const params = meta && { _meta: meta };
  const options = { cacheMode: "bypass" as const };
  return {
    listTools: () => client.listTools(params, options),
    listResources: () => client.listResources(params, options),
    readResource: ({ uri }) => client.readResource({ uri, ...params }, options),
  };
}

/** The report view is linked from its tools only when `declares`; listed and read either way. */
export async function expectReportView(client: ViewClient, declares: boolean): Promise<void> {
  const linked = (await client.listTools()).tools.filter((tool) => tool._meta?.ui !== undefined);
  expect(linked.map((tool) => tool.name).sort()).toEqual(declares ? [...REPORT_VIEW_TOOLS].sort() : []);
  expect((await client.listResources()).resources.map((resource) => resource.uri)).toEqual([REPORT_VIEW_URI]);
  const [content] = (await client.readResource({ uri: REPORT_VIEW_URI })).contents;
  expect(content?.mimeType).toBe(VIEW_MIME);
  expect(content?.text?.startsWith("<!doctype html>")).toBe(true);
}
