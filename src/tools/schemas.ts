// Shared zod pieces of the tool input and output schemas. Every object is strict: a misplaced key is
// an error that names it, never silently dropped.
import { z } from "zod";

/** Any 8-4-4-4-12 hex id (the services do not promise RFC-versioned uuids). */
export const guid = () => z.guid();

const ISO_DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** ISO 8601 date or date-time; checked at run time so the published schema stays small. */
export const isoDate = () =>
  z.string().refine((value) => ISO_DATE.test(value), "must be an ISO 8601 date (YYYY-MM-DD) or date-time");

/** A string whose full value set the spec does not give: accepted as is, seen values described. */
export const openString = (description: string) => z.string().min(1).describe(description);

// ---------------------------------------------------------------- outputs
// Lenient by design: the spec does not show nullability, and a strict output schema makes clients
// reject real responses. Every field optional and nullable, unknown keys kept.
type Shape = Record<string, z.ZodType>;
const loose = <T extends z.ZodType>(schema: T) => schema.nullable().optional();

export const lenientObject = (shape: Shape) =>
  z.looseObject(Object.fromEntries(Object.entries(shape).map(([key, value]) => [key, loose(value)])));

export const lenientArrayOf = (shape: Shape) => z.array(lenientObject(shape));

export const actorType = () => z.string();

// ---------------------------------------------------------------- analytics body pieces
export const FILTER_OPERATORS_SEEN = "is, contains, gte, lte";

export type FilterValueType = "string" | "boolean" | "number";

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

const filterValue = z.union([z.string(), z.number(), z.boolean()]);

/** One named filter: `{condition, items}`; published once per tool as `additionalProperties`. */
export const namedFilter = z.strictObject({
  condition: z.enum(["AND", "OR"]).describe("How the items combine."),
  items: z
    .array(
      z.strictObject({
        operator: openString(
          `Comparison; seen: ${FILTER_OPERATORS_SEEN}. Optional in the simple form.`,
        ).optional(),
        value: filterValue.describe("Value compared; type per filter name (see `filters`)."),
      }),
    )
    .min(1)
    .describe("Values to match."),
});

export const advancedFilters = z
  .strictObject({
    join: z.enum(["and", "or"]).describe("How the conditions combine."),
    conditions: z
      .array(
        z.strictObject({
          field: z.string().describe("A filter name valid for this tool."),
          operator: openString(`Seen: ${FILTER_OPERATORS_SEEN}.`),
          value: filterValue.describe("Typed as that filter's values."),
        }),
      )
      .min(1)
      .describe("The tests to combine."),
  })
  .describe("Conditions over filter names, joined by `join`.");

export const orderBy = (field: z.ZodType) =>
  z
    .array(
      z.strictObject({
        field: field.description ? field : field.describe("Field to sort on."),
        order: z.enum(["asc", "desc"]).describe("Direction."),
      }),
    )
    .min(1)
    .describe("Sort keys; the first sorts, later ones break ties.");

export const pagination = z
  .strictObject({
    limit: z.int().min(1).max(100).optional().describe("Rows per page, 1-100; default 10."),
    offset: z.int().min(0).optional().describe("Rows to skip; default 0."),
  })
  .describe("Page of rows. Omit it to get ALL rows (can be large).");
