// The sandbox over real sockets. The analytics API: projects each key may read, listings, filters and reports.
import { describe, expect, it } from "vitest";
import { SANDBOX_SINGLE_PROJECT_API_KEY, type Sandbox } from "../../src/sandbox/index.js";
import { geo, type J, listing, useFixedSandbox } from "./requests.js";

let sandbox: Sandbox;
useFixedSandbox((started) => {
  sandbox = started;
});

describe("analytics API", () => {
  it("lists the projects each key may read", async () => {
    const main = await geo("/projects", {});
    expect(main.status).toBe(200);
    expect(main.body.data.map((p: J) => p.id)).toEqual(sandbox.ids.analyticsProjects);
    expect(Object.keys(main.body.data[0])).toEqual(["id", "name", "url", "created_at"]);
    const single = await geo("/projects", {}, SANDBOX_SINGLE_PROJECT_API_KEY);
    expect(single.body.data.map((p: J) => p.id)).toEqual([sandbox.ids.singleKeyAnalyticsProjectId]);
    const extra = await geo("/projects", { foo: 1 });
    expect(extra.status).toBe(422);
  });

  it("checks project access and presence", async () => {
    const forbidden = await geo("/prompts", { project_id: sandbox.ids.forbiddenAnalyticsProjectId });
    expect(forbidden.status).toBe(403);
    const otherUser = await geo("/prompts", { project_id: sandbox.ids.singleKeyAnalyticsProjectId });
    expect(otherUser.status).toBe(403);
    const mine = await geo(
      "/prompts",
      { project_id: sandbox.ids.singleKeyAnalyticsProjectId },
      SANDBOX_SINGLE_PROJECT_API_KEY,
    );
    expect(mine.status).toBe(200);
    const missing = await geo("/prompts", {});
    expect(missing.body.detail).toEqual([
      { type: "missing", loc: ["body", "project_id"], msg: "Field required", input: {} },
    ]);
  });

  it("lists prompts with optional metrics, pagination and sorting", async () => {
    const all = await listing("/prompts");
    expect(all.status).toBe(200);
    expect(all.body.info.total_rows).toBe(40);
    expect(all.body.data).toHaveLength(40);
    expect(Object.keys(all.body.data[0])).toEqual([
      "id",
      "name",
      "created_date",
      "intent",
      "source",
      "search_volume",
    ]);
    expect(all.body.info.query).toMatchObject({
      metrics: [],
      start_date: null,
      pagination: null,
      filters: {},
    });

    const paged = await listing("/prompts", {
      pagination: {},
      order_by: [{ field: "search_volume", order: "desc" }],
    });
    expect(paged.body.data).toHaveLength(10);
    const volumes = paged.body.data.map((p: J) => p.search_volume);
    expect(volumes).toEqual([...volumes].sort((a, b) => b - a));
    expect(paged.body.info.query.pagination).toEqual({ limit: 10, offset: 0 });

    const withMetrics = await listing("/prompts", {
      metrics: ["answers_count", "answers"],
      start_date: "2026-01-01",
      end_date: "2026-01-10",
      pagination: { limit: 3, offset: 2 },
    });
    const row = withMetrics.body.data[0];
    expect(row.answers_count).toBe(row.answers.length);
    for (const answer of row.answers) {
      expect(Object.keys(answer)).toEqual(["date", "answer", "model"]);
      expect(answer.date >= "2026-01-01" && answer.date < "2026-01-11").toBe(true);
    }
    expect(withMetrics.body.info.query).toMatchObject({
      start_date: "2026-01-01T00:00:00Z",
      end_date: "2026-01-10T23:59:59.999Z",
      pagination: { limit: 3, offset: 2 },
    });
    const aliased = await listing("/prompts", {
      metrics: ["answers_count", "answers"],
      current_from: "2026-01-01",
      current_to: "2026-01-10",
      pagination: { limit: 3, offset: 2 },
    });
    expect(aliased.body).toEqual(withMetrics.body);
  });

  it("adds previous_ values for a comparison range, and only with both bounds", async () => {
    const res = await listing("/topics", {
      metrics: ["prompts_count", "prompts"],
      previous_from: "2025-11-01",
      previous_to: "2025-11-30",
    });
    expect(res.status).toBe(200);
    for (const row of res.body.data) {
      expect(Object.keys(row)).toEqual([
        "id",
        "name",
        "created_date",
        "prompts_count",
        "prompts",
        "previous_prompts_count",
      ]);
      expect(row.previous_prompts_count).toBeLessThanOrEqual(row.prompts_count);
    }
    expect(res.body.info.query.comparison_end_date).toBe("2025-11-30T23:59:59.999Z");
    const half = await listing("/topics", { comparison_start_date: "2025-11-01" });
    expect(half.status).toBe(422);
    expect(half.body.detail[0]).toMatchObject({ type: "missing", loc: ["body", "comparison_end_date"] });
  });

  it("validates metrics, sort fields and filter names per endpoint", async () => {
    const metric = await listing("/tags", { metrics: ["answers_count"] });
    expect(metric.body.detail[0]).toMatchObject({ type: "literal_error", loc: ["body", "metrics", 0] });
    const sort = await listing("/models", { order_by: [{ field: "url", order: "asc" }] });
    expect(sort.body.detail[0]).toMatchObject({
      type: "literal_error",
      loc: ["body", "order_by", 0, "field"],
    });
    const disabled = await listing("/tags", {
      filters: { disabled: { condition: "AND", items: [{ value: true }] } },
    });
    expect(disabled.status).toBe(422);
    expect(disabled.body.detail[0]).toMatchObject({
      type: "extra_forbidden",
      loc: ["body", "filters", "disabled"],
    });
    const operator = await listing("/prompts", {
      filters: { topics: { items: [{ operator: "near", value: "x" }] } },
    });
    expect(operator.body.detail[0].loc).toEqual(["body", "filters", "topics", "items", 0, "operator"]);
    const citationMetrics = await listing("/citations", { metrics: ["x"] });
    expect(citationMetrics.body.detail[0]).toMatchObject({
      type: "extra_forbidden",
      loc: ["body", "metrics"],
    });
  });

  it("applies filters", async () => {
    const topics = await listing("/topics");
    const topic = topics.body.data[0];
    const byTopic = await listing("/prompts", {
      filters: { topics: { condition: "OR", items: [{ value: topic.name }] } },
    });
    const topicPrompts = await listing("/topics", {
      metrics: ["prompts"],
      filters: { topics: { items: [{ value: topic.id }] } },
    });
    expect(topicPrompts.body.data).toHaveLength(1);
    expect(byTopic.body.data.map((p: J) => p.name).sort()).toEqual(
      [...topicPrompts.body.data[0].prompts].sort(),
    );

    const price = await listing("/keywords", {
      filters: { theme: { condition: "AND", items: [{ value: "price" }] } },
    });
    expect(price.body.data.length).toBeGreaterThan(0);
    expect(price.body.data.every((k: J) => k.theme === "Price")).toBe(true);

    const advanced = await listing("/citations", {
      filters: {
        advanced_filters: {
          join: "or",
          conditions: [
            { field: "domain", operator: "contains", value: "wikipedia" },
            { field: "domain", operator: "contains", value: "reddit" },
          ],
        },
      },
    });
    expect(advanced.body.data.length).toBeGreaterThan(0);
    expect(advanced.body.data.every((c: J) => /wikipedia|reddit/.test(c.domain))).toBe(true);
  });

  it("serves the other listings with their row shapes", async () => {
    const models = await listing("/models", {
      metrics: ["visibility_score", "mentions_count", "share_of_voice"],
      order_by: [{ field: "visibility_score", order: "desc" }],
    });
    expect(models.body.data).toHaveLength(5);
    expect(Object.keys(models.body.data[0])).toEqual([
      "id",
      "name",
      "provider",
      "visibility_score",
      "mentions_count",
      "share_of_voice",
    ]);
    const websites = await listing("/websites", { metrics: ["mentions_count"], pagination: { limit: 100 } });
    expect(websites.body.data).toHaveLength(15);
    expect(Object.keys(websites.body.data[0])).toEqual([
      "id",
      "name",
      "url",
      "website_type",
      "mentions_count",
    ]);
    expect(websites.body.data.filter((w: J) => w.website_type === "SELF")).toHaveLength(1);
    const citations = await listing("/citations", { pagination: { limit: 100 } });
    expect(citations.body.info.total_rows).toBe(60);
    expect(Object.keys(citations.body.data[0])).toEqual([
      "id",
      "url",
      "domain",
      "path",
      "title",
      "model",
      "first_seen",
    ]);
    const keywords = await listing("/keywords", {
      metrics: ["website_count", "subtheme_count", "theme_count"],
    });
    expect(keywords.body.info.total_rows).toBe(50);
    expect(Object.keys(keywords.body.data[0])).toEqual([
      "id",
      "keyword",
      "theme",
      "subtheme",
      "website_count",
      "subtheme_count",
      "theme_count",
    ]);
    const tags = await listing("/tags", {
      metrics: ["query_count", "competitor_count", "queries", "competitors"],
    });
    expect(tags.body.info.total_rows).toBe(12);
    const tag = tags.body.data[0];
    expect(tag.query_count).toBe(tag.queries.length);
    expect(tag.competitor_count).toBe(tag.competitors.length);
  });

  it("aggregates the sentiment report", async () => {
    const total = await geo("/v2/geo/reports/sentiments", { project_id: sandbox.analyticsProjectId });
    expect(total.status).toBe(200);
    expect(total.body.data).toHaveLength(1);
    const overall = total.body.data[0].total_keyword_occurrences;
    const byTopic = await geo("/v2/geo/reports/sentiments", {
      project_id: sandbox.analyticsProjectId,
      dimensions: ["topic"],
      measures: ["total_keyword_occurrences", "positive_share"],
    });
    expect(byTopic.body.data.reduce((sum: number, r: J) => sum + r.total_keyword_occurrences, 0)).toBe(
      overall,
    );
    expect(Object.keys(byTopic.body.data[0])).toEqual([
      "topic",
      "total_keyword_occurrences",
      "positive_share",
    ]);

    const weekly = await geo("/v2/geo/reports/sentiments", {
      project_id: sandbox.analyticsProjectId,
      dimensions: ["date", "model"],
      date_aggregation_interval: "week",
      website_type: "SELF",
      start_date: "2026-01-01",
      comparison_start_date: "2025-12-01",
      comparison_end_date: "2025-12-31",
      filters: { status: { condition: "AND", items: [{ value: "ACTIVE" }] } },
    });
    expect(weekly.status).toBe(200);
    expect(weekly.body.data[0]).toHaveProperty("previous_total_keyword_occurrences");
    expect(weekly.body.info.query).toMatchObject({ date_aggregation_interval: "week", website_type: "SELF" });

    const bad = await geo("/v2/geo/reports/sentiments", {
      project_id: sandbox.analyticsProjectId,
      metrics: ["x"],
      dimensions: ["planet"],
      measures: ["mood"],
      date_aggregation_interval: "year",
      website_type: "OTHER",
    });
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((d: J) => d.loc)).toEqual([
      ["body", "dimensions", 0],
      ["body", "measures", 0],
      ["body", "date_aggregation_interval"],
      ["body", "website_type"],
      ["body", "metrics"],
    ]);
  });
});
