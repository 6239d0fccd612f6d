// What the endpoint table cannot derive, held to it: a new endpoint fails here until the sandbox answers
// it and the every-tool tests call it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROUTES, type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { ENDPOINTS } from "../../src/tools/register.js";
import { callsFor, checkResult } from "../every-tool.js";
import { type InMemoryHarness, sandboxSettings, startInMemory } from "../helpers.js";

describe("every endpoint of the table", () => {
  let sandbox: Sandbox;
  let mcp: InMemoryHarness;
  beforeAll(async () => {
    sandbox = await startSandbox();
    mcp = await startInMemory(sandboxSettings(sandbox));
  });
  afterAll(async () => {
    await mcp.close();
    await sandbox.close();
  });

  it("has a sandbox route, and the sandbox no other", () => {
    const routes = Object.entries(ROUTES).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method} ${path}`),
    );
    expect(routes.sort()).toEqual(ENDPOINTS.map(({ method, path }) => `${method} ${path}`).sort());
  });

  it("has one call in test/every-tool.ts, in the table's order", () => {
    expect(callsFor(sandbox.ids).map(([name]) => name)).toEqual(ENDPOINTS.map(({ name }) => name));
  });

  it.each(ENDPOINTS.map(({ name }) => [name]))(
    "%s: its call answers as checkResult expects",
    async (name) => {
      const [, args] = callsFor(sandbox.ids).find(([called]) => called === name) ?? [];
      checkResult(name, await mcp.call(name, args), sandbox);
    },
  );
});
