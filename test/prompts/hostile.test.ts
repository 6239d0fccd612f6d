// Prompts over hostile data: every prompt message and every completion value, read by the CommonMark
// reference parser, shows everything it holds (no raw HTML, image, reference definition, hidden link or
// invisible character), whether the names come from the sandbox's "Inbox" projects or from an upstream
// that names every project, topic and website with an attack; and the calls a message asks for still
// carry the exact values given.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { lookupCache } from "../../src/prompts/lookups.js";
import { ATTACKS, BENIGN } from "../../src/sandbox/hostile-text.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { sanitizeText } from "../../src/tools/sanitize.js";
import {
  type InMemoryHarness,
  type RecordedHarness,
  sandboxSettings,
  startInMemory,
  startOnRecorder,
} from "../helpers.js";
import { hiddenIn } from "../markdown-judge.js";

/** The corpus, and pieces that only do harm together or against the message's own code spans. */
const HOSTILE: string[] = [
  ...Object.values(ATTACKS),
  "[click",
  "https://e.example/](javascript:alert(1))",
  "a`b``c",
  "`<img src=x onerror=alert(1)>`",
  "x\n\n[ref]: https://evil.example/r",
  "Acme\u2028<!-- hidden -->",
];

const promptText = (result: { messages: { content: { type: string; text?: string } }[] }) => {
  const [message] = result.messages;
  return message?.content.type === "text" ? (message.content.text ?? "") : "";
};

/** The calls a message asks for: the tool, and the JSON of its arguments out of its code span. */
function callsIn(text: string): { tool: string; args: Record<string, unknown> }[] {
  return [...text.matchAll(/call `(\w+)` with (`+) ?(\{.*\}) ?\2\.$/gm)].map((match) => ({
    tool: match[1] as string,
    args: JSON.parse(match[3] as string),
  }));
}

async function values(mcp: InMemoryHarness, prompt: string, name: string, args: Record<string, string> = {}) {
  const result = await mcp.client.complete({
    ref: { type: "ref/prompt", name },
    argument: { name: prompt, value: "" },
    context: { arguments: args },
  });
  return result.completion.values;
}

/** A completion value is offered only as it is: nothing hidden, and nothing the sanitizer would change. */
function expectShownWhole(value: string) {
  expect(hiddenIn(value), JSON.stringify(value)).toEqual([]);
  expect(sanitizeText(value).text).toBe(value);
}

function expectNothingHidden(text: string) {
  expect(hiddenIn(text), text).toEqual([]);
}

afterEach(() => lookupCache.clear());

it("the judge sees what each attack of the corpus hides, raw", () => {
  for (const attack of Object.values(ATTACKS))
    expect(hiddenIn(attack), JSON.stringify(attack)).not.toEqual([]);
  for (const benign of Object.values(BENIGN)) expect(hiddenIn(benign), JSON.stringify(benign)).toEqual([]);
});

// One sandbox for the file: its tests only read it (completions and prompts).
let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(async () => {
  await sandbox.close();
});

describe("on the sandbox, with its Inbox projects", () => {
  let mcp: InMemoryHarness;
  beforeAll(async () => {
    mcp = await startInMemory(sandboxSettings(sandbox), { sandboxToday: sandbox.today });
  });
  afterAll(async () => {
    await mcp.close();
  });

  it("every completion value shows whole, and every message it leads to hides nothing", async () => {
    const projects = await values(mcp, "project", "visibility_report");
    expect(projects).toContain("Inbox");
    let messages = 0;
    for (const project of projects) {
      const topics = await values(mcp, "topic", "visibility_report", { project });
      const competitors = await values(mcp, "competitor", "visibility_report", { project });
      for (const value of [project, ...topics, ...competitors]) expectShownWhole(value);
      const choices = [
        {},
        ...topics.map((topic) => ({ topic })),
        ...competitors.map((competitor) => ({ competitor })),
      ];
      for (const choice of project === "Inbox" ? choices : choices.slice(0, 2)) {
        const text = promptText(
          await mcp.client.getPrompt({
            name: "visibility_report",
            arguments: { project, period: "last-month", ...choice },
          }),
        );
        expectNothingHidden(text);
        messages++;
      }
    }
    for (const project of await values(mcp, "project", "task_triage")) {
      expectShownWhole(project);
      expectNothingHidden(
        promptText(await mcp.client.getPrompt({ name: "task_triage", arguments: { project } })),
      );
      messages++;
    }
    expect(messages).toBeGreaterThan(5);
  });

  it("the Inbox website named with bidi controls is not offered; it is still reachable by its id elsewhere", async () => {
    const competitors = await values(mcp, "competitor", "visibility_report", { project: "Inbox" });
    expect(competitors).not.toContain(ATTACKS.bidi);
    expect(competitors.some((name) => name.includes("invoice"))).toBe(false);
  });

  it.each(HOSTILE.map((text) => [JSON.stringify(text).slice(0, 50), text]))(
    "a typed topic and competitor %s: the message hides nothing, and its calls carry them exactly",
    async (_name, text) => {
      const value = text.trim();
      const rendered = promptText(
        await mcp.client.getPrompt({
          name: "visibility_report",
          arguments: { project: "Inbox", period: "last-month", topic: text, competitor: text },
        }),
      );
      expectNothingHidden(rendered);
      const calls = callsIn(rendered);
      expect(calls.map(({ tool }) => tool)).toEqual([
        "geo_models",
        "geo_websites",
        "geo_websites",
        "geo_reports_sentiments",
      ]);
      for (const { args } of calls) {
        expect((args.filters as { topics: unknown }).topics).toEqual({ items: [{ operator: "is", value }] });
      }
      expect((calls[2]!.args.filters as { name: unknown }).name).toEqual({
        items: [{ operator: "is", value }],
      });
    },
  );
});

describe("with --sanitize off", () => {
  it("names pass as the API sends them: the judge then finds what they hide", async () => {
    const mcp = await startInMemory(
      { ...sandboxSettings(sandbox), sanitize: "off" },
      { sandboxToday: sandbox.today },
    );
    try {
      const competitors = await values(mcp, "competitor", "visibility_report", { project: "Inbox" });
      expect(competitors).toContain(ATTACKS.bidi);
      const text = promptText(
        await mcp.client.getPrompt({
          name: "visibility_report",
          arguments: { project: "Inbox", period: "last-month", topic: ATTACKS.htmlTag },
        }),
      );
      expect(hiddenIn(text)).not.toEqual([]);
    } finally {
      await mcp.close();
    }
  });
});

describe("on an upstream whose every name is an attack", () => {
  let mcp: RecordedHarness;
  const ids = HOSTILE.map((_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`);
  const named = (i: number) => ({ id: ids[i]!, name: HOSTILE[i]!, url: HOSTILE[(i + 1) % HOSTILE.length]! });
  const rows = [
    ...HOSTILE.map((_, i) => named(i)),
    { id: "10000000-0000-4000-8000-000000000000", name: BENIGN.scripts, url: "https://ok.example" },
  ];
  beforeAll(async () => {
    mcp = await startOnRecorder(
      { workspaceApiKey: "hostile-names-key-0123456789", analyticsProjectId: ids[0] },
      (request) => ({
        body: request.path.endsWith("/whoami")
          ? { projects: rows }
          : { data: rows, info: { total_rows: rows.length } },
      }),
    );
  });
  afterAll(async () => {
    await mcp.close();
  });

  it("completion offers the names that show whole, and leaves out every attack", async () => {
    for (const [prompt, argument, context] of [
      ["visibility_report", "project", {}],
      ["visibility_report", "topic", { project: ids[0]! }],
      ["visibility_report", "competitor", { project: ids[0]! }],
      ["task_triage", "project", {}],
    ] as const) {
      const offered = await values(mcp, argument, prompt, context);
      for (const value of offered) expectShownWhole(value);
      expect(offered).toContain(BENIGN.scripts);
      for (const attack of Object.values(ATTACKS)) expect(offered).not.toContain(attack);
    }
  });

  it("every project's message, by id, hides nothing and names the project's id in its calls", async () => {
    for (const id of ids) {
      for (const [name, extra] of [
        ["visibility_report", { period: "last-month" }],
        ["task_triage", {}],
      ] as const) {
        const text = promptText(await mcp.client.getPrompt({ name, arguments: { project: id, ...extra } }));
        expectNothingHidden(text);
        for (const { args } of callsIn(text)) expect(args.project_id).toBe(id);
      }
    }
  });

  it("an unknown project's error lists the names, and hides nothing either", async () => {
    const error = await mcp.client
      .getPrompt({ name: "task_triage", arguments: { project: "no such project" } })
      .then(
        () => undefined,
        (failure: Error) => failure.message,
      );
    expect(error).toMatch(
      /task_triage: no workspace project "no such project" for this API key; whoami lists: /,
    );
    expectNothingHidden(error!);
  });
});
