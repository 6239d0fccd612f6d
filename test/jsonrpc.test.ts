// The hand-written JSON-RPC check must accept and refuse exactly what the SDK's JSONRPCMessageSchema
// does, and name the same kind of message, for near-miss messages as much as for random values.
import {
  JSONRPCErrorResponseSchema,
  JSONRPCMessageSchema,
  JSONRPCNotificationSchema,
  JSONRPCRequestSchema,
  JSONRPCResultResponseSchema,
} from "@modelcontextprotocol/sdk/types.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type MessageKind, messageKind } from "../src/jsonrpc.js";

/** What the SDK makes of a value: the kind of the first union member that accepts it. */
function sdkKind(value: unknown): MessageKind | undefined {
  if (!JSONRPCMessageSchema.safeParse(value).success) return undefined;
  if (JSONRPCRequestSchema.safeParse(value).success) return "request";
  if (JSONRPCNotificationSchema.safeParse(value).success) return "notification";
  if (JSONRPCResultResponseSchema.safeParse(value).success) return "result";
  if (JSONRPCErrorResponseSchema.safeParse(value).success) return "error";
  throw new Error("accepted by the union but by none of its members");
}

/** Values of the kinds that decide: ids, tokens and codes, valid and not. */
const scalar = fc.oneof(
  fc.constantFrom(0, 1, -7, 1.5, 2 ** 53, Number.NaN, "", "id-1", null, true, undefined),
  fc.integer(),
  fc.string({ maxLength: 4 }),
);
const meta = fc.oneof(
  fc.constant(undefined),
  fc.record(
    {
      progressToken: scalar,
      "io.modelcontextprotocol/related-task": fc.oneof(fc.record({ taskId: scalar }), scalar),
      other: scalar,
    },
    { requiredKeys: [] },
  ),
  scalar,
  fc.constant([]),
);
const objectish = fc.oneof(
  fc.constant(undefined),
  fc.record({ _meta: meta, cursor: scalar, name: scalar }, { requiredKeys: [] }),
  scalar,
  fc.array(scalar, { maxLength: 2 }),
);
const error = fc.oneof(
  fc.record({ code: scalar, message: scalar, data: scalar }, { requiredKeys: [] }),
  scalar,
);

/** Messages built from the envelope's keys, each present or not, each well typed or not. */
const anyShape = fc.record(
  {
    jsonrpc: fc.constantFrom("2.0", "1.0", 2),
    id: scalar,
    method: fc.oneof(fc.constantFrom("tools/call", "ping", "notifications/cancelled"), scalar),
    params: objectish,
    result: objectish,
    error,
    extra: scalar,
  },
  { requiredKeys: [] },
);

const VALID: Record<string, unknown>[] = [
  { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "whoami", _meta: { progressToken: 1 } } },
  { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } },
  { jsonrpc: "2.0", id: "r", result: { _meta: { progressToken: "t" } } },
  { jsonrpc: "2.0", id: 2, error: { code: -32601, message: "Method not found" } },
];

/** A valid message with one key replaced by any value, dropped, or added. */
const oneChange = fc
  .tuple(
    fc.constantFrom(...VALID),
    fc.constantFrom("jsonrpc", "id", "method", "params", "result", "error", "extra"),
    fc.oneof(
      scalar,
      objectish,
      error,
      meta.map((value) => ({ _meta: value })),
    ),
    fc.boolean(),
  )
  .map(([message, key, value, drop]) => {
    const changed: Record<string, unknown> = { ...message };
    if (drop) delete changed[key];
    else changed[key] = value;
    return changed;
  });

const nearMessage = fc.oneof(anyShape, oneChange);

describe("messageKind", () => {
  it("agrees with the SDK's JSONRPCMessageSchema on near-miss messages", () => {
    fc.assert(
      fc.property(nearMessage, (value) => {
        expect(messageKind(value)).toBe(sdkKind(value));
      }),
      { numRuns: 5000 },
    );
  });

  it("agrees with it on arbitrary JSON values", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(messageKind(value)).toBe(sdkKind(value));
      }),
      { numRuns: 1000 },
    );
  });

  it("names each kind of a well-formed message", () => {
    const cases: [unknown, MessageKind | undefined][] = [
      [{ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "whoami" } }, "request"],
      [{ jsonrpc: "2.0", id: "a", method: "ping" }, "request"],
      [{ jsonrpc: "2.0", method: "notifications/initialized" }, "notification"],
      [{ jsonrpc: "2.0", id: 3, result: {} }, "result"],
      [{ jsonrpc: "2.0", id: 4, error: { code: -32601, message: "Method not found" } }, "error"],
      [{ jsonrpc: "2.0", error: { code: -32700, message: "Parse error" } }, "error"],
      [{ jsonrpc: "2.0", id: 1.5, method: "ping" }, undefined],
      [{ jsonrpc: "2.0", id: 1, method: "ping", result: {} }, undefined],
      [{ jsonrpc: "2.0", id: 1, method: "ping", params: [] }, undefined],
      [{ jsonrpc: "2.0", id: 1, method: "x", params: { _meta: { progressToken: 1.5 } } }, undefined],
      [[{ jsonrpc: "2.0", method: "ping", id: 1 }], undefined],
    ];
    for (const [value, kind] of cases) {
      expect(messageKind(value)).toBe(kind);
      expect(sdkKind(value)).toBe(kind);
    }
  });
});
