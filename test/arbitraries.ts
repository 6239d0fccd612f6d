// fast-check arbitraries of valid arguments for every tool, built from each tool's constraints: the
// workspace shapes by hand (their cross-field rules), the analytics listings from their schemas (enum
// metrics and sort fields, extra fields) plus the rules of analytics-rules.ts (aliases, date pairs,
// filter value types). And binaryString, fast-check's binary strings without their start-up cost.
import fc from "fast-check";
import { z } from "zod";
import type { EndpointDefinition } from "../src/tools/definition.js";
import { COMMON_FILTERS, type FilterValueType } from "../src/tools/schemas.js";

type Args = Record<string, unknown>;

/** Code points below the surrogates; those above them are numbered on from here, 0x800 lower. */
const SURROGATES = 0xd800;
const SURROGATE_COUNT = 0x800;
/**
 * One code point, surrogates aside: fast-check's own `binary` unit, drawn the same way (the same index
 * from the same seed, so the same strings and the same shrinking). fast-check's unit maps each of the
 * 1.1 million characters back to its index in a Map, built when the first `binary` string is made and
 * kept for the worker's life; this one computes the index.
 */
const binaryUnit: fc.Arbitrary<string> = fc.nat({ max: 0x10ffff - SURROGATE_COUNT }).map(
  (index) => String.fromCodePoint(index < SURROGATES ? index : index + SURROGATE_COUNT),
  (value) => {
    const point = typeof value === "string" ? value.codePointAt(0) : undefined;
    if (
      point === undefined ||
      String.fromCodePoint(point) !== value ||
      (point >= SURROGATES && point < 0xe000)
    )
      throw new Error("not one code point outside the surrogates");
    return point < SURROGATES ? point : point - SURROGATE_COUNT;
  },
);

/** `fc.string({ unit: "binary", ...constraints })`, the same strings for the same seed, without its start-up cost. */
export const binaryString = (constraints: Omit<fc.StringConstraints, "unit"> = {}) =>
  fc.string({ ...constraints, unit: binaryUnit });

const guid = fc.uuid();
const text = fc.string({ minLength: 1, maxLength: 12 });
const some = <T>(arbitrary: fc.Arbitrary<T>) => fc.array(arbitrary, { minLength: 1, maxLength: 3 });
const optionalRecord = <T extends Record<string, fc.Arbitrary<unknown>>>(shape: T) =>
  fc.record(shape, { requiredKeys: [] });

const isoDate = fc
  .date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("2099-12-31T00:00:00Z"), noInvalidDate: true })
  .chain((date) => fc.constantFrom(date.toISOString().slice(0, 10), date.toISOString()));

const routing = { project_id: guid, workspace_id: guid };

/**
 * Whether a key named `__proto__` sits anywhere in `value`. fast-check favours that name among the strings
 * it makes, and the server refuses it (validation.ts, shapeProblems): it is never valid.
 */
const holdsProtoKey = (value: unknown): boolean =>
  typeof value === "object" &&
  value !== null &&
  Object.entries(value).some(([key, inner]) => key === "__proto__" || holdsProtoKey(inner));

const workspaceArguments: Record<string, fc.Arbitrary<Args>> = {
  whoami: optionalRecord({ workspace_id: guid }),
  tasks_query: optionalRecord({
    ...routing,
    view: fc.constantFrom("list", "counts"),
    query: optionalRecord({
      filter: fc
        .dictionary(text, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 })
        .filter((filter) => !holdsProtoKey(filter)),
      sort: optionalRecord({ sort_by: text, sort_order: text }),
      pagination: optionalRecord({ cursor: fc.string(), page_size: fc.integer({ min: 1, max: 100 }) }),
      include_parents: fc.boolean(),
    }),
    group_by: fc.constantFrom("status", "priority", "assignee_id", "creator_id", "page_id"),
  }).filter((args) => args.view !== "counts" || args.group_by !== undefined),
  tasks_comments: fc.record(
    { ...routing, action: fc.constant("create"), task_id: guid, body: fc.option(fc.string(), { nil: null }) },
    { requiredKeys: ["task_id"] },
  ),
  agent_runs_query: fc.constantFrom("task_runs", "agent_runs", "run_progress").chain((scope) => {
    const needs = { task_runs: ["task_id"], agent_runs: ["agent_id"], run_progress: ["task_id", "run_id"] }[
      scope
    ];
    const shape = {
      ...routing,
      scope: fc.constant(scope),
      task_id: guid,
      agent_id: guid,
      run_id: guid,
      cursor: fc.string(),
      limit: fc.integer({ min: 1, max: 100 }),
    };
    return fc.record(shape, { requiredKeys: ["scope", ...(needs as (keyof typeof shape)[])] });
  }),
  attachments_download_url: fc.constantFrom("task", "comment").chain((target) => {
    const shape = {
      ...routing,
      target: fc.constant(target),
      attachment_id: guid,
      task_id: guid,
      comment_id: guid,
    };
    const needed = target === "task" ? ["task_id" as const] : [];
    return fc.record(shape, { requiredKeys: ["target", "attachment_id", ...needed] });
  }),
};

/** A date under its canonical name or its alias; a comparison range in full or not at all. */
const dates: fc.Arbitrary<Args> = fc
  .tuple(
    fc.option(fc.tuple(fc.constantFrom("start_date", "current_from"), isoDate), { nil: undefined }),
    fc.option(fc.tuple(fc.constantFrom("end_date", "current_to"), isoDate), { nil: undefined }),
    fc.option(
      fc.tuple(
        fc.constantFrom("comparison_start_date", "previous_from"),
        isoDate,
        fc.constantFrom("comparison_end_date", "previous_to"),
        isoDate,
      ),
      { nil: undefined },
    ),
  )
  .map(([start, end, comparison]) => {
    const pairs: [string, string][] = [];
    if (start) pairs.push(start);
    if (end) pairs.push(end);
    if (comparison) pairs.push([comparison[0], comparison[1]], [comparison[2], comparison[3]]);
    return Object.fromEntries(pairs);
  });

const VALUE_OF: Record<FilterValueType, fc.Arbitrary<unknown>> = {
  string: fc.string(),
  boolean: fc.boolean(),
  number: fc.integer(),
  any: fc.oneof(fc.boolean(), fc.string()),
};
const filterNames = Object.keys(COMMON_FILTERS);
const filterItem = (type: FilterValueType) =>
  fc.record({ operator: text, value: VALUE_OF[type] }, { requiredKeys: ["value"] });

const filters: fc.Arbitrary<Args> = fc
  .tuple(
    fc.uniqueArray(fc.constantFrom(...filterNames), { maxLength: 3 }),
    fc.option(
      some(
        fc.constantFrom(...filterNames).chain((field) =>
          fc.record({
            field: fc.constant(field),
            operator: text,
            value: VALUE_OF[COMMON_FILTERS[field] ?? "string"],
          }),
        ),
      ),
      { nil: undefined },
    ),
  )
  .chain(([names, conditions]) => {
    const named = Object.fromEntries(
      names.map((name) => [
        name,
        fc.record({
          condition: fc.constantFrom("AND", "OR"),
          items: some(filterItem(COMMON_FILTERS[name] ?? "string")),
        }),
      ]),
    );
    const advanced = conditions ? { advanced_filters: fc.constant({ join: "and", conditions }) } : {};
    return fc.record({ ...named, ...advanced });
  });

const enumOf = (schema: unknown) => (schema instanceof z.ZodEnum ? (schema.options as string[]) : undefined);
const oneOf = (values: string[] | undefined) => (values ? fc.constantFrom(...values) : text);

/** The fields a listing adds to the common body, read from its schema. */
function listingExtras(shape: Record<string, z.ZodType>): Record<string, fc.Arbitrary<unknown>> {
  const extras: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [key, field] of Object.entries(shape)) {
    const inner = field instanceof z.ZodOptional ? field.unwrap() : field;
    if (key === "metrics" && inner instanceof z.ZodArray) extras.metrics = some(oneOf(enumOf(inner.element)));
    else if (key === "order_by" && inner instanceof z.ZodArray) {
      const sortField = oneOf(enumOf((inner.element as z.ZodObject).shape.field));
      extras.order_by = some(fc.record({ field: sortField, order: fc.constantFrom("asc", "desc") }));
    } else if (["dimensions", "measures"].includes(key)) extras[key] = some(text);
    else if (["date_aggregation_interval", "website_type"].includes(key)) extras[key] = text;
  }
  return extras;
}

function analyticsArguments(definition: EndpointDefinition): fc.Arbitrary<Args> {
  if (!definition.projectScoped) return fc.constant({});
  const body = optionalRecord({
    project_id: guid,
    pagination: optionalRecord({ limit: fc.integer({ min: 1, max: 100 }), offset: fc.nat() }),
    filters,
    ...listingExtras(definition.input.shape as Record<string, z.ZodType>),
  });
  return fc.tuple(body, dates).map(([fields, range]) => ({ ...fields, ...range }));
}

export function validArguments(definition: EndpointDefinition): fc.Arbitrary<Args> {
  const arbitrary =
    definition.api === "workspace" ? workspaceArguments[definition.name] : analyticsArguments(definition);
  if (!arbitrary) throw new Error(`no arbitrary for ${definition.name}`);
  return arbitrary;
}
