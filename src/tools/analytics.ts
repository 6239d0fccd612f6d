// The visibility-analytics (GEO) API (spec: visibility-analytics-api.md), one entry per endpoint.
import { z } from "zod";
import { checkAnalyticsBody } from "./analytics-rules.js";
import { defineEndpoints, type EndpointDefinition } from "./definition.js";
import {
  advancedFilters,
  COMMON_FILTERS,
  type FilterValueType,
  guid,
  isoDate,
  namedFilter,
  openString,
  orderBy,
  outputObject,
  pagination,
} from "./schemas.js";

/** Which metrics a listing takes: the spec's whole set (enum), only values seen, or none at all. */
type Metrics = { all: readonly [string, ...string[]] } | { seen: string } | "none";
/** Sort fields: the spec's whole set (enum) or an open string with what is known. */
type SortFields = { all: readonly [string, ...string[]] } | { seen: string };

interface AnalyticsListing {
  name: string;
  title: string;
  path: string;
  description: string;
  metrics: Metrics;
  sortFields: SortFields;
  extraFilters: Record<string, FilterValueType>;
  extraFields?: Record<string, z.ZodType>;
  /** The row fields the spec gives, as text (see outputObject). */
  row?: string;
}

const dateField = (description: string) => isoDate().optional().describe(description);

const commonBody = {
  project_id: guid()
    .optional()
    .describe("Analytics project uuid from geo_projects `data[].id`. Default: ANALYTICS_PROJECT_ID."),
  start_date: dateField(
    "ISO 8601 (2025-01-15 and 2025-01-15T10:00:00Z are known to work); data on or after it. Default: latest run's start with metrics, else earliest data.",
  ),
  end_date: dateField("ISO 8601; data on or before it (a date alone means its end). Default: today."),
  current_from: dateField("Alias of start_date."),
  current_to: dateField("Alias of end_date."),
  comparison_start_date: dateField(
    "Start of a past range to compare with; needs comparison_end_date. Rows then carry `previous_` values.",
  ),
  comparison_end_date: dateField("End of the comparison range; needs comparison_start_date."),
  previous_from: dateField("Alias of comparison_start_date."),
  previous_to: dateField("Alias of comparison_end_date."),
  pagination: pagination.optional(),
};

const describeFilters = (extra: Record<string, FilterValueType>) => {
  const all = { ...COMMON_FILTERS, ...extra };
  const byType = (type: FilterValueType) =>
    Object.keys(all)
      .filter((name) => all[name] === type)
      .join(", ");
  const untyped = byType("any");
  return `Named filters, each {condition?, items:[{operator?, value}]}. String values: ${byType("string")}. Boolean: ${byType("boolean")}. Number: ${byType("number")}.${untyped ? ` Untyped: ${untyped}.` : ""} Plus advanced_filters.`;
};

function metricsField(metrics: Metrics) {
  if (metrics === "none") return {};
  const item = "all" in metrics ? z.enum(metrics.all) : openString(`Metric name; seen: ${metrics.seen}.`);
  return { metrics: z.array(item).optional().describe("Measures to add to each row.") };
}

function sortField(sortFields: SortFields) {
  return "all" in sortFields
    ? z.enum(sortFields.all)
    : openString(`Field to sort on; known: ${sortFields.seen}.`);
}

const listingOutput = (row?: string) =>
  outputObject({
    data: row ? `Rows: ${row}.` : "Rows; fields not documented.",
    info: "total_rows (integer, rows before paging), query (the applied request).",
  });

function analyticsListing(listing: AnalyticsListing): EndpointDefinition {
  const allowedFilters = { ...COMMON_FILTERS, ...listing.extraFilters };
  const input = z
    .strictObject({
      ...commonBody,
      ...metricsField(listing.metrics),
      order_by: orderBy(sortField(listing.sortFields)).optional(),
      filters: z
        .strictObject({ advanced_filters: advancedFilters.optional() })
        .catchall(namedFilter)
        .optional()
        .describe(describeFilters(listing.extraFilters)),
      ...listing.extraFields,
    })
    .superRefine((args, ctx) => checkAnalyticsBody(args, ctx, allowedFilters));
  return {
    name: listing.name,
    title: listing.title,
    api: "analytics",
    method: "POST",
    path: listing.path,
    projectScoped: true,
    readOnly: true,
    description: listing.description,
    input,
    output: listingOutput(listing.row),
  };
}

const ORDER_TAIL = "rows are `data`, the count before paging `info.total_rows`";

export const analyticsEndpoints = defineEndpoints([
  {
    name: "geo_projects",
    title: "Analytics projects",
    api: "analytics",
    method: "POST",
    path: "/v2/geo/business/projects",
    projectScoped: false,
    readOnly: true,
    description:
      "The analytics projects this key can read (`data[]`: id, name, url, created_at). Call it first: `id` is the project_id of every other geo_ tool.",
    input: z.strictObject({}),
    output: outputObject({ data: "Projects: id (uuid), name, url, created_at (date-time)." }),
  },
  analyticsListing({
    name: "geo_prompts",
    title: "Tracked prompts",
    path: "/v2/geo/business/prompts",
    description: `Tracked prompts (queries) of a project with optional metrics; ${ORDER_TAIL}.`,
    metrics: { all: ["answers_count", "answers"] },
    sortFields: { all: ["answers_count", "answers", "name", "search_volume"] },
    extraFilters: { disabled: "any" },
    row: "id (uuid), name, created_date (date-time), intent ([{value}]), source (strings), search_volume, answers_count (integers), answers ([{date, answer, model}])",
  }),
  analyticsListing({
    name: "geo_tags",
    title: "Prompt tags",
    path: "/v2/geo/business/tags",
    description: `Tags (custom labels on prompts) with optional metrics; ${ORDER_TAIL}.`,
    metrics: { all: ["query_count", "competitor_count", "queries", "competitors"] },
    sortFields: { all: ["query_count", "competitor_count", "queries", "competitors", "name"] },
    extraFilters: { slug: "string", competitors: "string" },
    row: "id (uuid), name, created_date (YYYY-MM-DD), category, color, slug, query_count, competitor_count (integers), queries (strings), competitors ([{id, name, url}])",
  }),
  analyticsListing({
    name: "geo_topics",
    title: "Prompt topics",
    path: "/v2/geo/business/topics",
    description: `Topics (categories grouping prompts) with optional metrics; ${ORDER_TAIL}.`,
    metrics: { all: ["prompts_count", "prompts"] },
    sortFields: { all: ["prompts_count", "prompts", "name"] },
    extraFilters: {},
    row: "id (uuid), name, created_date (YYYY-MM-DD), prompts_count (integer), prompts (strings)",
  }),
  analyticsListing({
    name: "geo_models",
    title: "Answer models",
    path: "/v2/geo/business/models",
    description: `AI models answering the project's prompts, with optional metrics; ${ORDER_TAIL}. Row fields are not documented.`,
    metrics: { seen: "none documented (visibility_score is a known sort field)" },
    sortFields: { seen: "visibility_score" },
    extraFilters: { name: "string" },
  }),
  analyticsListing({
    name: "geo_websites",
    title: "Websites",
    path: "/v2/geo/business/websites",
    description: `Websites seen in answers, with optional metrics; ${ORDER_TAIL}. Row fields are not documented.`,
    metrics: { seen: "mentions_count, visibility_score" },
    sortFields: { seen: "a metric name" },
    extraFilters: { url: "string", name: "string" },
  }),
  analyticsListing({
    name: "geo_citations",
    title: "Citations",
    path: "/v2/geo/business/citations",
    description: `Pages cited in answers (no metrics); ${ORDER_TAIL}. Row fields are not documented.`,
    metrics: "none",
    sortFields: { seen: "not documented" },
    extraFilters: { domain: "string", url: "string", path: "string" },
  }),
  analyticsListing({
    name: "geo_keywords",
    title: "Keywords",
    path: "/v2/geo/business/keywords",
    description: `Keywords found in answers, with optional metrics; ${ORDER_TAIL}. Row fields are not documented.`,
    metrics: { all: ["website_count", "subtheme_count", "theme_count"] },
    sortFields: { seen: "a metric name" },
    extraFilters: {
      theme: "string",
      subtheme: "string",
      websites: "string",
      brand_name: "string",
      keyword: "string",
    },
  }),
  analyticsListing({
    name: "geo_reports_sentiments",
    title: "Sentiment report",
    path: "/v2/geo/reports/sentiments",
    description: `Sentiment report: rows of the chosen dimensions with the chosen measures (no metrics); ${ORDER_TAIL}. Value sets of the four report fields are not documented.`,
    metrics: "none",
    sortFields: { seen: "a dimension or measure" },
    extraFilters: { status: "string" },
    extraFields: {
      dimensions: z.array(openString("seen: topic, model")).optional().describe("Row groupings."),
      measures: z
        .array(openString("seen: total_keyword_occurrences, unique_positive_keywords"))
        .optional()
        .describe("Values per row."),
      date_aggregation_interval: openString("Time bucket; seen: week.").optional(),
      website_type: openString("Whose website; seen: SELF.").optional(),
    },
  }),
]);
