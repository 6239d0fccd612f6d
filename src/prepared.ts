// Results that never change (the tool list) serialised once: a transport that writes its own bytes
// can send the prepared text instead of running JSON.stringify over ~48 KB on every request.
import type { CallToolResult, JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

const PREPARED = new WeakMap<object, string>();

/** Marks `result` as constant and keeps its JSON text; returns `result` unchanged. */
export function prepareResult<T extends object>(result: T): T {
  PREPARED.set(result, JSON.stringify(result));
  return result;
}

/** The JSON text of a prepared result, or undefined for any other value. */
export function preparedJson(result: unknown): string | undefined {
  return result !== null && typeof result === "object" ? PREPARED.get(result) : undefined;
}

type Structured = Record<string, unknown>;

/** A tool result's body and its compact JSON, found through the body's first object-valued field. */
const STRUCTURED_TEXT = new WeakMap<object, { body: Structured; text: string }>();

const firstObjectField = (body: Structured): object | undefined =>
  Object.values(body).find((value): value is object => value !== null && typeof value === "object");

/**
 * A tool result carrying `body` both as the compact JSON text block and as `structuredContent`. The
 * text is kept so the answer can embed it rather than serialise the body a second time; the SDK
 * validates results into copies, which keep the body's fields (the same objects), hence the key.
 */
export function structuredResult(body: Structured): CallToolResult {
  const text = JSON.stringify(body);
  const key = firstObjectField(body);
  if (key) STRUCTURED_TEXT.set(key, { body, text });
  return { content: [{ type: "text", text }], structuredContent: body };
}

/** The stored text of a result shaped exactly as structuredResult made it, with the same fields. */
function structuredText(result: unknown): string | undefined {
  const { content, structuredContent, ...rest } = result as CallToolResult;
  if (!structuredContent || Object.keys(rest).length > 0 || content?.length !== 1) return undefined;
  const block = content[0]!;
  if (block.type !== "text" || Object.keys(block).length !== 2) return undefined;
  const key = firstObjectField(structuredContent);
  const stored = key && STRUCTURED_TEXT.get(key);
  if (!stored || stored.text !== block.text) return undefined;
  const keys = Object.keys(structuredContent);
  const same =
    keys.length === Object.keys(stored.body).length &&
    keys.every(
      (name, index) =>
        Object.keys(stored.body)[index] === name && stored.body[name] === structuredContent[name],
    );
  return same ? stored.text : undefined;
}

/**
 * A JSON-RPC message as one line of text (the same keys in the same order the SDK writes): a prepared
 * result is assembled around its stored text, a structured tool result around its stored compact
 * JSON, anything else goes through JSON.stringify.
 */
export function serializeLine(message: JSONRPCMessage): string {
  if (!("result" in message) || !("id" in message)) return `${JSON.stringify(message)}\n`;
  const id = JSON.stringify(message.id);
  const prepared = preparedJson(message.result);
  if (prepared !== undefined) return `{"result":${prepared},"jsonrpc":"2.0","id":${id}}\n`;
  const text = "structuredContent" in message.result ? structuredText(message.result) : undefined;
  if (text === undefined) return `${JSON.stringify(message)}\n`;
  const content = `[{"type":"text","text":${JSON.stringify(text)}}]`;
  return `{"result":{"content":${content},"structuredContent":${text}},"jsonrpc":"2.0","id":${id}}\n`;
}
