// Argument checking before anything is sent, with messages a model can act on: the path of each
// fault, the keys allowed where an unknown key was given, and where a misplaced key belongs. The
// answer is bounded whatever was sent: a few problems, each quoting a short excerpt of the input.
import { z } from "zod";
import { excerpt } from "../excerpt.js";

/** Arguments nest at most this deep (the deepest the specs use is 6); deeper is refused up front. */
export const MAX_ARGUMENT_DEPTH = 32;
/** Arguments hold at most this many values in all (object entries and list items, at any depth). */
export const MAX_ARGUMENT_VALUES = 5_000;
/** An answer names at most this many problems, then how many more there are. */
export const MAX_LISTED_PROBLEMS = 10;

type AnySchema = z.core.$ZodType;
type Path = PropertyKey[];

/** Steps through wrappers (optional, default, nullable, pipe) to the schema that decides the shape. */
function unwrap(schema: AnySchema): AnySchema {
  let current = schema;
  for (;;) {
    const def = current._zod.def as { type: string; innerType?: AnySchema; in?: AnySchema };
    if (def.innerType) current = def.innerType;
    else if (def.type === "pipe" && def.in) current = def.in;
    else return current;
  }
}

function objectShape(schema: AnySchema): Record<string, AnySchema> | undefined {
  const def = unwrap(schema)._zod.def as { type: string; shape?: Record<string, AnySchema> };
  return def.type === "object" ? def.shape : undefined;
}

function children(schema: AnySchema): [string | null, AnySchema][] {
  const def = unwrap(schema)._zod.def as {
    type: string;
    shape?: Record<string, AnySchema>;
    element?: AnySchema;
    catchall?: AnySchema;
    valueType?: AnySchema;
  };
  if (def.type === "object") {
    const named = Object.entries(def.shape ?? {}) as [string, AnySchema][];
    return def.catchall && unwrap(def.catchall)._zod.def.type !== "never"
      ? [...named, [null, def.catchall]]
      : named;
  }
  if (def.type === "array" && def.element) return [["[]", def.element]];
  if (def.type === "record" && def.valueType) return [[null, def.valueType]];
  return [];
}

/** Every key the schema allows, with the dotted paths where it may stand (`*` for any name). */
export function indexKeyPaths(schema: AnySchema): Map<string, string[]> {
  const index = new Map<string, string[]>();
  const walk = (node: AnySchema, path: string[], depth: number) => {
    if (depth > 8) return;
    for (const [key, child] of children(node)) {
      const segment = key ?? "*";
      if (key !== null && key !== "[]") {
        const at = [...path, key].join(".");
        index.set(key, [...(index.get(key) ?? []), at]);
      }
      walk(child, [...path, segment], depth + 1);
    }
  };
  walk(schema, [], 0);
  return index;
}

function schemaAt(schema: AnySchema, path: Path): AnySchema | undefined {
  let current: AnySchema | undefined = schema;
  for (const segment of path) {
    if (!current) return undefined;
    const entries = children(current);
    const key = typeof segment === "number" ? "[]" : String(segment);
    current = (entries.find(([name]) => name === key) ?? entries.find(([name]) => name === null))?.[1];
  }
  return current;
}

/** A path as the messages show it: each client-given segment an excerpt, the whole at most twice that. */
const dotted = (path: Path) =>
  path.length ? excerpt(path.map((segment) => excerpt(String(segment))).join("."), 200) : "(arguments)";

/** The lines of a bounded list: the first MAX_LISTED_PROBLEMS, then how many more there are. */
function bulleted(lines: string[], total: number): string {
  const listed = lines.slice(0, MAX_LISTED_PROBLEMS).map((line) => `- ${line}`);
  const more = total - listed.length;
  if (more > 0) listed.push(`- …and ${more} more problem${more > 1 ? "s" : ""}; fix these first`);
  return listed.join("\n");
}

export function describeIssues(
  schema: AnySchema,
  keyPaths: Map<string, string[]>,
  issues: z.core.$ZodIssue[],
): string {
  const lines: string[] = [];
  let total = 0;
  for (const issue of issues) {
    const keys = issue.code === "unrecognized_keys" ? issue.keys : undefined;
    total += keys ? keys.length : 1;
    if (lines.length >= MAX_LISTED_PROBLEMS) continue; // counted, not described
    if (!keys) {
      lines.push(`${dotted(issue.path)}: ${issue.message}`);
      continue;
    }
    const allowed = Object.keys(objectShape(schemaAt(schema, issue.path) ?? schema) ?? {});
    for (const key of keys.slice(0, MAX_LISTED_PROBLEMS - lines.length)) {
      const elsewhere = keyPaths.get(key);
      const hint = elsewhere?.length ? ` (${key} belongs at ${elsewhere.join(" or ")})` : "";
      lines.push(
        `${dotted([...issue.path, key])}: unknown key${hint}; allowed here: ${allowed.join(", ") || "none"}`,
      );
    }
  }
  return bulleted(lines, total);
}

/**
 * What no schema judges, found before any other check: more than MAX_ARGUMENT_VALUES values, nesting
 * deeper than MAX_ARGUMENT_DEPTH, and keys named `__proto__`, which a JavaScript object cannot carry as
 * data (it would be dropped silently on the way). Walks with a stack of its own, so no depth of input
 * can overflow the call stack, and stops at the bound, so no size of input can stall the server.
 */
export function shapeProblems(args: Record<string, unknown>): { lines: string[]; total: number } {
  const lines: string[] = [];
  let total = 0;
  let values = 0;
  const pending: [unknown, Path][] = [[args, []]];
  while (pending.length > 0) {
    const [value, path] = pending.pop()!;
    if (value === null || typeof value !== "object") continue;
    if (path.length >= MAX_ARGUMENT_DEPTH) {
      total++;
      lines.push(
        `${dotted(path.slice(0, 4))}…: nests deeper than ${MAX_ARGUMENT_DEPTH} levels, the most this server accepts; send a flatter value`,
      );
      continue; // nothing below it is looked at
    }
    const keys = Array.isArray(value) ? undefined : Object.keys(value);
    values += keys ? keys.length : (value as unknown[]).length;
    if (values > MAX_ARGUMENT_VALUES) {
      const line = `(arguments): more than ${MAX_ARGUMENT_VALUES} values in all (names and list items), the most this server reads; send only what the tool takes`;
      return { lines: [...lines, line], total: total + 1 };
    }
    if (!keys) {
      const items = value as unknown[];
      for (let index = items.length - 1; index >= 0; index--) pending.push([items[index], [...path, index]]);
      continue;
    }
    for (const key of keys) {
      if (key === "__proto__") {
        total++;
        if (lines.length < MAX_LISTED_PROBLEMS) {
          lines.push(`${dotted([...path, key])}: "__proto__" is not accepted as a name; leave it out`);
        }
      }
      pending.push([(value as Record<string, unknown>)[key], [...path, key]]);
    }
  }
  return { lines, total };
}

export type CheckedArguments =
  | { success: true; data: Record<string, unknown> }
  | { success: false; problems: string };

/** The arguments as the tool sends them, or a bounded list of what to fix; nothing is sent on failure. */
export function checkArguments(
  schema: z.ZodType<Record<string, unknown>>,
  keyPaths: Map<string, string[]>,
  raw: Record<string, unknown>,
): CheckedArguments {
  // Bounded first (decoding reads every top-level key), then again once JSON text is decoded.
  let shape = shapeProblems(raw);
  const decoded = shape.total > 0 ? raw : decodeStringifiedArguments(schema, raw);
  if (decoded !== raw) shape = shapeProblems(decoded);
  if (shape.total > 0) return { success: false, problems: bulleted(shape.lines, shape.total) };
  const parsed = schema.safeParse(dropNullOptionals(schema, decoded));
  if (parsed.success) return { success: true, data: parsed.data };
  return { success: false, problems: describeIssues(schema, keyPaths, parsed.error.issues) };
}

/**
 * Some clients send object or array arguments as JSON text: accept a top-level string that parses to
 * the object or array the schema expects, and leave everything else for the schema to judge.
 */
export function decodeStringifiedArguments(schema: AnySchema, args: Record<string, unknown>) {
  const shape = objectShape(schema) ?? {};
  let decoded: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(args)) {
    // Own keys only: an argument named "valueOf" or "constructor" must not find Object.prototype's.
    const field = Object.hasOwn(shape, key) ? shape[key] : undefined;
    const expected = field ? unwrap(field)._zod.def.type : undefined;
    if (
      typeof value !== "string" ||
      !(expected === "object" || expected === "array" || expected === "record")
    ) {
      continue;
    }
    try {
      const parsed: unknown = JSON.parse(value);
      if (parsed !== null && typeof parsed === "object" && Array.isArray(parsed) === (expected === "array")) {
        decoded ??= { ...args };
        decoded[key] = parsed;
      }
    } catch {
      // Not JSON: the schema reports the type mismatch.
    }
  }
  return decoded ?? args;
}

/** Whether a field may be left out: optional or defaulted (a catchall entry, such as a named filter, may too). */
const mayBeAbsent = (field: AnySchema) => field._zod.optin !== undefined;

/**
 * Several model families send `null` for every optional field they do not use: such a `null` means
 * "not given" and is dropped, at any depth. A field that accepts `null` itself (a "string or null" of
 * the spec) keeps it, and a required field's `null` is left for the schema to refuse.
 */
export function dropNullOptionals(schema: AnySchema, value: unknown): unknown {
  if (Array.isArray(value)) {
    const element = children(schema).find(([key]) => key === "[]")?.[1];
    return element ? value.map((item) => dropNullOptionals(element, item)) : value;
  }
  if (value === null || typeof value !== "object") return value;
  const fields = children(schema);
  if (fields.length === 0) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const named = fields.find(([name]) => name === key && name !== "[]")?.[1];
    const field = named ?? fields.find(([name]) => name === null)?.[1];
    if (!field) {
      out[key] = item; // an unknown key: the schema names it
    } else if (item === null && (!named || mayBeAbsent(field)) && !z.safeParse(field, null).success) {
      // not given
    } else {
      out[key] = dropNullOptionals(field, item);
    }
  }
  return out;
}
