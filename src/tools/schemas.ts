// Shared zod pieces of the tool input and output schemas. Every object is strict: a misplaced key is
// an error that names it, never silently dropped.
import { z } from "zod";

/** Any 8-4-4-4-12 hex id (the services do not promise RFC-versioned uuids). */
export const guid = () => z.guid();

/**
 * ISO 8601 date or date-time, left to the API: ISO 8601 admits many forms (basic format, hour-only
 * offsets, reduced precision) and the spec names no subset, so no local pattern guesses one.
 */
export const isoDate = () => z.string();

/** A string whose full value set the spec does not give: accepted as is, seen values described. */
export const openString = (description: string) => z.string().describe(description);

// ---------------------------------------------------------------- outputs
// Clients (the SDKs, Ajv) check structuredContent against the published outputSchema and throw the
// whole result away on a mismatch. So no field constrains its value: each accepts any JSON value (or
// none), and its usual type is in its description.

/** An output object: the spec's fields, described, each any JSON value; unlisted keys are kept. */
export const outputObject = (fields: Record<string, string>) =>
  z.looseObject(
    Object.fromEntries(
      Object.entries(fields).map(([key, description]) => [key, z.unknown().optional().describe(description)]),
    ),
  );

// ---------------------------------------------------------------- published by description
/**
 * Schemas published as `{type, description}` alone: their structure, checked here all the same, is in
 * the description. The analytics filter grammar, spelled out as JSON Schema, was a third of the tools'
 * definitions (docs/context-cost.md).
 */
export const PUBLISHED_AS_DESCRIBED = new WeakSet<z.ZodType>();

export const publishedAsDescribed = <T extends z.ZodType>(schema: T): T => {
  PUBLISHED_AS_DESCRIBED.add(schema);
  return schema;
};

/** Fields accepted but left out of the published schema: synonyms a model never needs (the spec's aliases). */
export const UNPUBLISHED = new WeakSet<z.ZodType>();

export const unpublished = <T extends z.ZodType>(schema: T): T => {
  UNPUBLISHED.add(schema);
  return schema;
};

// ---------------------------------------------------------------- analytics body pieces
export const FILTER_OPERATORS_SEEN = "is, contains, gte, lte";

/** The value type the spec gives a filter name; `any` where it gives none. */
export type FilterValueType = "string" | "boolean" | "number" | "any";

/** Filters every analytics listing accepts, with the value type the spec gives each. */
export const COMMON_FILTERS: Record<string, FilterValueType> = {
  topics: "string",
  prompts: "string",
  tags: "string",
  markets: "string",
  intent: "string",
  branded: "boolean",
  platform: "string",
  has_shopping_card: "boolean",
  has_ads_data: "boolean",
  visibility: "number",
  rank: "number",
  website_mentioned_in_answer: "string",
  cited_page_url: "string",
  cited_domain: "string",
  website_mentioned_in_citation: "string",
};

// Operators are only "seen", so one the spec has not seen (`in`, `between`) may take a list. The
// value's type depends on the filter's name: analytics-rules.ts checks it, the description says it.
const filterValue = z.unknown();

/**
 * One named filter, `{condition, items}`; `condition` and `operator` may be left out (the spec's
 * simpler prompts and tags shape). Published once per tool as `additionalProperties`.
 */
export const namedFilter = z.strictObject({
  condition: z.enum(["AND", "OR"]).optional().describe("How the items combine."),
  items: z
    .array(
      z.strictObject({
        operator: openString(`Comparison; seen: ${FILTER_OPERATORS_SEEN}.`).optional(),
        value: filterValue.describe("The filter's type (see `filters`), or a list of it."),
      }),
    )
    .describe("Values to match."),
});

export const advancedFilters = z
  .strictObject({
    join: z.enum(["and", "or"]).optional().describe("How the conditions combine."),
    conditions: z
      .array(
        z.strictObject({
          field: z.string().describe("A filter name valid for this tool."),
          operator: openString(`Seen: ${FILTER_OPERATORS_SEEN}.`).optional(),
          value: filterValue.describe("That filter's type, or a list of it."),
        }),
      )
      .describe("The tests to combine."),
  })
  .describe("Conditions over filter names, joined by `join`.");

export const orderBy = (field: z.ZodType) =>
  z
    .array(
      z.strictObject({
        field: field.description ? field : field.describe("Field to sort on."),
        order: z.enum(["asc", "desc"]).optional().describe("Default asc."),
      }),
    )
    .describe("Sort keys; later ones break ties.");

export const pagination = z
  .strictObject({
    limit: z.int().min(1).max(100).optional().describe("Default 10."),
    offset: z.int().min(0).optional().describe("Default 0."),
  })
  .describe("Omit it for ALL rows (can be large).");
