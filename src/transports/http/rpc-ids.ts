// What a JSON-RPC body is about, read before the SDK sees it: the request it is, or the request a
// cancellation names. A batch or a malformed body is neither.
import type { RequestId } from "@modelcontextprotocol/server";

const isRequestId = (id: unknown): id is RequestId => typeof id === "string" || Number.isSafeInteger(id);

/** The id of a single JSON-RPC request body, if it is one. */
export function requestIdOf(body: unknown): RequestId | undefined {
  const message = body as { id?: unknown; method?: unknown } | undefined;
  return typeof message?.method === "string" && isRequestId(message.id) ? message.id : undefined;
}

/** The request a single `notifications/cancelled` body names, if it is one. */
export function cancelledIdOf(body: unknown): RequestId | undefined {
  const message = body as { method?: unknown; params?: { requestId?: unknown } } | undefined;
  if (message?.method !== "notifications/cancelled") return undefined;
  const id = message.params?.requestId;
  return isRequestId(id) ? id : undefined;
}
