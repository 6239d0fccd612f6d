// The prepared tool list: stdio writes it from stored text, and what arrives must be exactly what
// JSON.stringify of the same response would have written.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { preparedJson, prepareResult, serializeLine } from "../src/prepared.js";
import { TOOL_LIST } from "../src/tools/register.js";

const CLI = new URL("../dist/cli.js", import.meta.url).pathname;

/** All the built server writes to stdout for `input`, sent at once before stdin closes. */
async function stdioSession(input: string): Promise<string> {
  const child = spawn(process.execPath, [CLI], {
    env: { PATH: process.env.PATH },
    stdio: ["pipe", "pipe", "ignore"],
  });
  let output = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk;
  });
  child.stdin.end(input);
  await once(child, "exit");
  return output;
}

describe("prepared results", () => {
  it("the tool list is prepared and its text is the JSON of the list", () => {
    expect(preparedJson(TOOL_LIST)).toBe(JSON.stringify(TOOL_LIST));
  });

  it("a response carrying a prepared result is the line JSON.stringify writes, for number and string ids", () => {
    for (const id of [7, "req-7"]) {
      const message = { result: TOOL_LIST, jsonrpc: "2.0" as const, id };
      expect(serializeLine(message)).toBe(`${JSON.stringify(message)}\n`);
    }
  });

  it("any other message goes through JSON.stringify, even one that holds a prepared object deeper down", () => {
    const toolResult = {
      result: { content: [{ type: "text", text: "{}" }], structuredContent: {} },
      jsonrpc: "2.0" as const,
      id: 1,
    };
    const error = { jsonrpc: "2.0" as const, id: 2, error: { code: -32601, message: "Method not found" } };
    const nested = { result: { list: TOOL_LIST }, jsonrpc: "2.0" as const, id: 3 };
    for (const message of [toolResult, error, nested]) {
      expect(serializeLine(message)).toBe(`${JSON.stringify(message)}\n`);
    }
  });

  it("prepareResult hands back the same object and unprepared values have no text", () => {
    const result = { tools: [] };
    expect(preparedJson(result)).toBeUndefined();
    expect(prepareResult(result)).toBe(result);
    expect(preparedJson(result)).toBe('{"tools":[]}');
    expect(preparedJson(null)).toBeUndefined();
    expect(preparedJson("text")).toBeUndefined();
  });

  it("the built server answers tools/list over stdio with exactly those bytes", async () => {
    const output = await stdioSession('{"jsonrpc":"2.0","id":"list-1","method":"tools/list"}\n');
    expect(output).toBe(`${JSON.stringify({ result: TOOL_LIST, jsonrpc: "2.0", id: "list-1" })}\n`);
  });

  it("answers sent in the same turn, large and small, arrive whole and in order", async () => {
    // pings are small answers that wait for the turn to end; the tool list is written at once.
    const requests = [
      ["a", "ping"],
      ["b", "ping"],
      ["c", "tools/list"],
      ["d", "ping"],
    ];
    const output = await stdioSession(
      requests.map(([id, method]) => `{"jsonrpc":"2.0","id":"${id}","method":"${method}"}\n`).join(""),
    );
    const expected = requests.map(
      ([id, method]) =>
        `${JSON.stringify({ result: method === "ping" ? {} : TOOL_LIST, jsonrpc: "2.0", id })}\n`,
    );
    expect(output).toBe(expected.join(""));
  });
});
