// Which JSON-RPC message a parsed value is. The transports check every incoming message with this
// instead of the SDK's JSONRPCMessageSchema: the same rules (strict envelope keys, integer or string
// ids, object params and results, the typed `_meta` keys), written as plain property checks because a
// zod union parse of every message was a visible share of each call's CPU time.
import type { JSONRPCMessage, RequestId } from "@modelcontextprotocol/sdk/types.js";

export type MessageKind = "request" | "notification" | "result" | "error";

/** A message with its kind, as the transports hand it on. */
export interface CheckedMessage {
  kind: MessageKind;
  message: JSONRPCMessage;
}

const RELATED_TASK = "io.modelcontextprotocol/related-task";

/** A JSON object: not null, not an array. */
export const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

export const isRequestId = (value: unknown): value is RequestId =>
  typeof value === "string" || Number.isSafeInteger(value);

/** Only the listed keys (the SDK's envelope schemas are strict). */
function onlyKeys(value: Record<string, unknown>, allowed: readonly string[]): boolean {
  for (const key in value) if (!allowed.includes(key)) return false;
  return true;
}

/** `_meta` of params or a result: an object whose progress token and related task are well typed. */
function validMeta(meta: unknown): boolean {
  if (meta === undefined) return true;
  if (!isObject(meta)) return false;
  if (meta.progressToken !== undefined && !isRequestId(meta.progressToken)) return false;
  const related = meta[RELATED_TASK];
  return related === undefined || (isObject(related) && typeof related.taskId === "string");
}

const validParams = (params: unknown) =>
  params === undefined || (isObject(params) && validMeta(params._meta));

const REQUEST_KEYS = ["jsonrpc", "id", "method", "params"];
const NOTIFICATION_KEYS = ["jsonrpc", "method", "params"];
const RESULT_KEYS = ["jsonrpc", "id", "result"];
const ERROR_KEYS = ["jsonrpc", "id", "error"];

/** The kind of a JSON-RPC 2.0 message as MCP accepts it, or undefined when `value` is none. */
export function messageKind(value: unknown): MessageKind | undefined {
  if (!isObject(value) || value.jsonrpc !== "2.0") return undefined;
  if (typeof value.method === "string") {
    if (!validParams(value.params)) return undefined;
    if (value.id === undefined) return onlyKeys(value, NOTIFICATION_KEYS) ? "notification" : undefined;
    return isRequestId(value.id) && onlyKeys(value, REQUEST_KEYS) ? "request" : undefined;
  }
  if (value.result !== undefined) {
    const { result } = value;
    const valid = isRequestId(value.id) && isObject(result) && validMeta(result._meta);
    return valid && onlyKeys(value, RESULT_KEYS) ? "result" : undefined;
  }
  const { error } = value;
  const valid =
    (value.id === undefined || isRequestId(value.id)) &&
    isObject(error) &&
    Number.isSafeInteger(error.code) &&
    typeof error.message === "string";
  return valid && onlyKeys(value, ERROR_KEYS) ? "error" : undefined;
}

/** Checks one parsed message; undefined when it is not a JSON-RPC message. */
export function checkMessage(value: unknown): CheckedMessage | undefined {
  const kind = messageKind(value);
  return kind && { kind, message: value as JSONRPCMessage };
}
