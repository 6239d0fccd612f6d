// Results whose JSON text is known before they are sent: the tool list, serialised once (not ~48 KB
// of JSON.stringify per request), and each tool result, assembled around the JSON text of the
// upstream body that its text block carries anyway (not a second pass over the same body).
import type { CallToolResult, JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { attachedText, attachText, knownJsonText } from "./json-text.js";

/** The JSON text of a prepared result, held on the result itself (see json-text.ts for why). */
const PREPARED = Symbol("preparedJson");

/** Marks `result` as constant and keeps its JSON text; returns `result` unchanged. */
export function prepareResult<T extends object>(result: T): T {
  attachText(result, PREPARED, JSON.stringify(result));
  return result;
}

/**
 * A tool's answer: the body as a text block and as structuredContent. Its JSON text is what
 * JSON.stringify of the result gives (same keys, same order), with the upstream's own text of the body
 * where there is one (json-text.ts): the same value for any reader.
 */
export function structuredResult(body: Record<string, unknown>): CallToolResult {
  const text = knownJsonText(body) ?? JSON.stringify(body);
  const result: CallToolResult = { content: [{ type: "text", text }], structuredContent: body };
  attachText(
    result,
    PREPARED,
    `{"content":[{"type":"text","text":${JSON.stringify(text)}}],"structuredContent":${text}}`,
  );
  return result;
}

/** The JSON text of a prepared result, or undefined for any other value. */
export function preparedJson(result: unknown): string | undefined {
  return result !== null && typeof result === "object" ? attachedText(result, PREPARED) : undefined;
}

/**
 * A JSON-RPC message as one line of text: a response with a prepared result is assembled around its
 * stored text (the same keys the SDK writes), anything else goes through JSON.stringify.
 */
export function serializeLine(message: JSONRPCMessage): string {
  const prepared = "result" in message ? preparedJson(message.result) : undefined;
  if (prepared === undefined || !("id" in message)) return `${JSON.stringify(message)}\n`;
  return `{"result":${prepared},"jsonrpc":"2.0","id":${JSON.stringify(message.id)}}\n`;
}
