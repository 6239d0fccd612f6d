// Results that never change (the tool list) serialised once: a transport that writes its own bytes
// can send the prepared text instead of running JSON.stringify over ~48 KB on every request.
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

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

/**
 * A JSON-RPC message as one line of text: a response with a prepared result is assembled around its
 * stored text (the same keys the SDK writes), anything else goes through JSON.stringify.
 */
export function serializeLine(message: JSONRPCMessage): string {
  const prepared = "result" in message ? preparedJson(message.result) : undefined;
  if (prepared === undefined || !("id" in message)) return `${JSON.stringify(message)}\n`;
  return `{"result":${prepared},"jsonrpc":"2.0","id":${JSON.stringify(message.id)}}\n`;
}
