// Argument checking before anything is sent, with messages a model can act on: the path of each
// fault, the keys allowed where an unknown key was given, and where a misplaced key belongs.
import { z } from "zod";

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

const dotted = (path: Path) => (path.length ? path.map(String).join(".") : "(arguments)");

export function describeIssues(
  schema: AnySchema,
  keyPaths: Map<string, string[]>,
  issues: z.core.$ZodIssue[],
): string {
  const lines: string[] = [];
  for (const issue of issues) {
    if (issue.code === "unrecognized_keys") {
      const allowed = Object.keys(objectShape(schemaAt(schema, issue.path) ?? schema) ?? {});
      for (const key of issue.keys) {
        const elsewhere = keyPaths.get(key);
        const hint = elsewhere?.length ? ` (${key} belongs at ${elsewhere.join(" or ")})` : "";
        lines.push(
          `${dotted([...issue.path, key])}: unknown key${hint}; allowed here: ${allowed.join(", ") || "none"}`,
        );
      }
    } else {
      lines.push(`${dotted(issue.path)}: ${issue.message}`);
    }
  }
  return lines.map((line) => `- ${line}`).join("\n");
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

/** Arguments as the schema should judge them: JSON-text objects decoded, null optionals dropped. */
export function prepareArguments(schema: AnySchema, args: Record<string, unknown>): Record<string, unknown> {
  return dropNullOptionals(schema, decodeStringifiedArguments(schema, args)) as Record<string, unknown>;
}
