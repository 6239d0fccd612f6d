// POST /v2/geo/reports/sentiments
//
// Aggregates the seeded sentiment facts (keyword said about a website in an
// answer) by `dimensions` and reports `measures` per group:
//   total_keyword_occurrences  sum of occurrences
//   unique_positive_keywords   distinct positive keywords
//   unique_negative_keywords   distinct negative keywords
//   positive_share             positive occurrences / all occurrences (0..1, 4 decimals)
// No dimensions -> one total row. Defaults: all measures, interval "day",
// both website types, all-time range. With a comparison range each row also
// carries previous_<measure> for the same dimension values (0 when absent).

import { analyticsRequest, COMMON_SHAPE, inRange, paginate, type Range, sortRows } from "./analytics.js";
import { applyFilters, COMMON_FILTERS, type Resolver } from "./analytics-filters.js";
import { indexOf } from "./analytics-listings.js";
import type { ProjectData, SentimentFact } from "./analytics-types.js";
import type { Ctx } from "./context.js";
import { DAY, isoDate } from "./random.js";
import { arr, obj, oneOf, opt } from "./validate.js";

const DIMENSIONS = ["topic", "model", "date", "website"] as const;
const MEASURES = [
  "total_keyword_occurrences",
  "unique_positive_keywords",
  "unique_negative_keywords",
  "positive_share",
] as const;
type Dimension = (typeof DIMENSIONS)[number];
type Measure = (typeof MEASURES)[number];
type Interval = "day" | "week" | "month";

const check = obj({
  ...COMMON_SHAPE,
  dimensions: opt(arr(oneOf(DIMENSIONS))),
  measures: opt(arr(oneOf(MEASURES))),
  date_aggregation_interval: opt(oneOf(["day", "week", "month"])),
  website_type: opt(oneOf(["SELF", "COMPETITOR"])),
});

function bucket(ms: number, interval: Interval): string {
  if (interval === "month") return `${isoDate(ms).slice(0, 7)}-01`;
  if (interval === "week") {
    const day = new Date(ms).getUTCDay();
    return isoDate(ms - ((day + 6) % 7) * DAY);
  }
  return isoDate(ms);
}

function resolvers(data: ProjectData): Partial<Record<string, Resolver<SentimentFact>>> {
  const ix = indexOf(data);
  const prompt = new Map(data.prompts.map((p) => [p.id, p]));
  const topicOf = (f: SentimentFact) => ix.topic.get(prompt.get(f.promptId)?.topicId ?? "");
  return {
    topics: (f) => (topicOf(f) ? [topicOf(f)!.id, topicOf(f)!.name] : []),
    prompts: (f) => [f.promptId, prompt.get(f.promptId)?.name ?? ""],
    tags: (f) => (prompt.get(f.promptId)?.tagIds ?? []).flatMap((id) => [id, ix.tag.get(id)?.name ?? ""]),
    markets: (f) => [prompt.get(f.promptId)?.market ?? ""],
    intent: (f) => (prompt.get(f.promptId)?.intent ?? []).map((i) => i.name),
    branded: (f) => [prompt.get(f.promptId)?.branded ?? false],
    platform: (f) => [ix.model.get(f.modelId)?.name ?? ""],
    website_mentioned_in_answer: (f) => [
      ix.website.get(f.websiteId)?.name ?? "",
      ix.website.get(f.websiteId)?.url ?? "",
    ],
    status: (f) => [prompt.get(f.promptId)?.disabled ? "INACTIVE" : "ACTIVE"],
  };
}

type Row = Record<string, string | number>;

function aggregate(
  facts: SentimentFact[],
  dims: Dimension[],
  measures: Measure[],
  interval: Interval,
  data: ProjectData,
) {
  const ix = indexOf(data);
  const topicOfPrompt = new Map(data.prompts.map((p) => [p.id, ix.topic.get(p.topicId)?.name ?? ""]));
  const dimValue = (f: SentimentFact, d: Dimension): string => {
    if (d === "topic") return topicOfPrompt.get(f.promptId) ?? "";
    if (d === "model") return ix.model.get(f.modelId)?.name ?? "";
    if (d === "website") return ix.website.get(f.websiteId)?.name ?? "";
    return bucket(f.date, interval);
  };
  const groups = new Map<string, { dims: Row; facts: SentimentFact[] }>();
  for (const f of facts) {
    const values = dims.map((d) => dimValue(f, d));
    const key = JSON.stringify(values);
    const group = groups.get(key) ?? {
      dims: Object.fromEntries(dims.map((d, i) => [d, values[i]!])),
      facts: [],
    };
    group.facts.push(f);
    groups.set(key, group);
  }
  if (dims.length === 0 && groups.size === 0) groups.set("[]", { dims: {}, facts: [] });
  const result = new Map<string, Row>();
  for (const [key, { dims: dimRow, facts: list }] of groups) {
    const polarity = (f: SentimentFact) => ix.keyword.get(f.keywordId)?.polarity;
    const total = list.reduce((sum, f) => sum + f.occurrences, 0);
    const positive = list.filter((f) => polarity(f) === "positive");
    const values: Record<Measure, number> = {
      total_keyword_occurrences: total,
      unique_positive_keywords: new Set(positive.map((f) => f.keywordId)).size,
      unique_negative_keywords: new Set(
        list.filter((f) => polarity(f) === "negative").map((f) => f.keywordId),
      ).size,
      positive_share:
        total === 0
          ? 0
          : Math.round((10_000 * positive.reduce((s, f) => s + f.occurrences, 0)) / total) / 10_000,
    };
    const row: Row = { ...dimRow };
    for (const m of measures) row[m] = values[m];
    result.set(key, row);
  }
  return result;
}

export function sentimentReport(ctx: Ctx): unknown {
  const { body, query } = analyticsRequest(ctx, check, {
    filterNames: [...COMMON_FILTERS, "status"],
    sortFields: (b) => {
      const measures = b.measures ?? MEASURES;
      return [...(b.dimensions ?? []), ...measures, ...measures.map((m) => `previous_${m}`)];
    },
    isMetricQuery: () => false,
  });
  const dims = [...new Set(body.dimensions ?? [])];
  const measures = [...new Set(body.measures ?? MEASURES)];
  const interval = body.date_aggregation_interval ?? "day";
  const { data } = query;
  const websiteType = body.website_type;
  const pick = (range: Range) => {
    const facts = data.facts.filter(
      (f) =>
        inRange(f.date, range) &&
        (websiteType === undefined || indexOf(data).website.get(f.websiteId)?.website_type === websiteType),
    );
    return aggregate(applyFilters(facts, query.filters, resolvers(data)), dims, measures, interval, data);
  };

  const current = pick(query.range);
  const previous = query.comparison ? pick(query.comparison) : null;
  const rows = [...current].map(([key, row]) => {
    if (!previous) return row;
    const past = previous.get(key);
    const out: Row = { ...row };
    for (const m of measures) out[`previous_${m}`] = past?.[m] ?? 0;
    return out;
  });
  const order = query.orderBy ?? dims.map((field) => ({ field, order: "asc" as const }));
  const sorted = sortRows(
    rows,
    order,
    (row, field) => row[field],
    (row) => JSON.stringify(dims.map((d) => row[d])),
  );
  return {
    data: paginate(sorted, query.pagination),
    info: {
      total_rows: sorted.length,
      query: {
        dimensions: dims,
        measures,
        date_aggregation_interval: interval,
        website_type: websiteType ?? null,
        ...query.echo,
      },
    },
  };
}
