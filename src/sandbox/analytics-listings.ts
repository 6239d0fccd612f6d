// Row shapes, metrics and filter mappings of the seven analytics listings.
//
// Rows with a creation date are listed once they exist by end_date; without
// metrics (a plain list query) an explicit start_date also drops rows created
// before it. Metrics are computed over the requested range:
//   prompts   answers_count / answers: answers collected in range (newest first)
//   tags      query_count / queries: tagged prompts existing by end_date; competitor_count / competitors
//   topics    prompts_count / prompts: prompts of the topic existing by end_date
//   models    visibility_score: % of the model's answers naming the project's own brand;
//             mentions_count: those answers; share_of_voice: % of all brand mentions that are own-brand
//   websites  mentions_count: answers naming it; visibility_score: % of all answers naming it;
//             citations_count: citations of its domain in answers
//   keywords  website_count: websites it was said about; subtheme_count / theme_count:
//             occurrences of all keywords of its subtheme / theme
// Citations have no metrics; they are listed when first_seen falls in range.

import { inRange, listing, type Range } from "./analytics.js";
import type { Resolver } from "./analytics-filters.js";
import type {
  Answer,
  Citation,
  Keyword,
  Model,
  ProjectData,
  Prompt,
  Tag,
  Topic,
  Website,
} from "./analytics-types.js";
import { iso } from "./random.js";

const created = (text: string) => Date.parse(text);
const existsIn = (text: string, range: Range, metricQuery: boolean) =>
  created(text) <= range.to && (metricQuery || range.from === null || created(text) >= range.from);
const pct = (part: number, whole: number) => (whole === 0 ? 0 : Math.round((1000 * part) / whole) / 10);

interface Index {
  topic: Map<string, Topic>;
  tag: Map<string, Tag>;
  website: Map<string, Website>;
  model: Map<string, Model>;
  citation: Map<string, Citation>;
  keyword: Map<string, Keyword>;
  answersOf: Map<string, Answer[]>;
  self: Website;
}

const indexes = new WeakMap<ProjectData, Index>();

/** Lookup tables per project, built once; seed data never changes. */
export function indexOf(data: ProjectData): Index {
  let found = indexes.get(data);
  if (!found) {
    const byId = <T extends { id: string }>(items: T[]) => new Map(items.map((i) => [i.id, i]));
    const answersOf = new Map<string, Answer[]>();
    for (const a of data.answers) answersOf.set(a.promptId, [...(answersOf.get(a.promptId) ?? []), a]);
    found = {
      topic: byId(data.topics),
      tag: byId(data.tags),
      website: byId(data.websites),
      model: byId(data.models),
      citation: byId(data.citations),
      keyword: byId(data.keywords),
      answersOf,
      self: data.websites.find((w) => w.website_type === "SELF")!,
    };
    indexes.set(data, found);
  }
  return found;
}

const idAndName = (item: { id: string; name: string } | undefined) => (item ? [item.id, item.name] : []);

export const listPrompts = listing<Prompt>({
  metrics: ["answers_count", "answers"],
  numeric: ["answers_count"],
  sortFields: ["name", "search_volume"],
  extraFilters: ["disabled"],
  defaultOrder: { field: "name", order: "asc" },
  rows: (data, range, metricQuery) =>
    data.prompts.filter((p) => existsIn(p.created_date, range, metricQuery)),
  base: (p) => ({
    id: p.id,
    name: p.name,
    created_date: p.created_date,
    intent: p.intent.map((i) => ({ ...i })),
    source: [...p.source],
    search_volume: p.search_volume,
  }),
  metric: (p, name, range, data) => {
    const ix = indexOf(data);
    const answers = (ix.answersOf.get(p.id) ?? []).filter((a) => inRange(a.date, range));
    if (name === "answers_count") return answers.length;
    return [...answers]
      .sort((a, b) => b.date - a.date)
      .map((a) => ({ date: iso(a.date), answer: a.text, model: ix.model.get(a.modelId)?.name }));
  },
  resolvers: (data) => {
    const ix = indexOf(data);
    const answers = (p: Prompt) => ix.answersOf.get(p.id) ?? [];
    const cited = (p: Prompt) => answers(p).flatMap((a) => a.citationIds.map((id) => ix.citation.get(id)!));
    return {
      topics: (p) => idAndName(ix.topic.get(p.topicId)),
      prompts: (p) => [p.id, p.name],
      tags: (p) => p.tagIds.flatMap((id) => idAndName(ix.tag.get(id))),
      markets: (p) => [p.market],
      intent: (p) => p.intent.map((i) => i.name),
      branded: (p) => [p.branded],
      disabled: (p) => [p.disabled],
      platform: (p) => answers(p).map((a) => ix.model.get(a.modelId)?.name ?? ""),
      website_mentioned_in_answer: (p) =>
        answers(p).flatMap((a) =>
          a.websiteIds.flatMap((id) => [ix.website.get(id)?.name ?? "", ix.website.get(id)?.url ?? ""]),
        ),
      cited_domain: (p) => cited(p).map((c) => c.domain),
      cited_page_url: (p) => cited(p).map((c) => c.url),
    };
  },
});

const taggedPrompts = (tag: Tag, range: Range, data: ProjectData) =>
  data.prompts.filter((p) => p.tagIds.includes(tag.id) && created(p.created_date) <= range.to);

export const listTags = listing<Tag>({
  metrics: ["query_count", "competitor_count", "queries", "competitors"],
  numeric: ["query_count", "competitor_count"],
  sortFields: ["name"],
  extraFilters: ["slug", "competitors"],
  defaultOrder: { field: "name", order: "asc" },
  rows: (data, range, metricQuery) => data.tags.filter((t) => existsIn(t.created_date, range, metricQuery)),
  base: (t) => ({
    id: t.id,
    name: t.name,
    created_date: t.created_date,
    category: t.category,
    color: t.color,
    slug: t.slug,
  }),
  metric: (t, name, range, data) => {
    if (name === "query_count") return taggedPrompts(t, range, data).length;
    if (name === "queries") return taggedPrompts(t, range, data).map((p) => p.name);
    if (name === "competitor_count") return t.competitorIds.length;
    const ix = indexOf(data);
    return t.competitorIds.map((id) => {
      const w = ix.website.get(id)!;
      return { id: w.id, name: w.name, url: w.url };
    });
  },
  resolvers: (data) => {
    const ix = indexOf(data);
    const all: Range = { from: null, to: Number.MAX_SAFE_INTEGER };
    return {
      tags: (t) => [t.id, t.name],
      slug: (t) => [t.slug],
      competitors: (t) =>
        t.competitorIds.flatMap((id) => [id, ix.website.get(id)?.name ?? "", ix.website.get(id)?.url ?? ""]),
      prompts: (t) => taggedPrompts(t, all, data).flatMap((p) => [p.id, p.name]),
      topics: (t) => taggedPrompts(t, all, data).flatMap((p) => idAndName(ix.topic.get(p.topicId))),
    };
  },
});

const topicPrompts = (topic: Topic, range: Range, data: ProjectData) =>
  data.prompts.filter((p) => p.topicId === topic.id && created(p.created_date) <= range.to);

export const listTopics = listing<Topic>({
  metrics: ["prompts_count", "prompts"],
  numeric: ["prompts_count"],
  sortFields: ["name"],
  extraFilters: [],
  defaultOrder: { field: "name", order: "asc" },
  rows: (data, range, metricQuery) => data.topics.filter((t) => existsIn(t.created_date, range, metricQuery)),
  base: (t) => ({ id: t.id, name: t.name, created_date: t.created_date }),
  metric: (t, name, range, data) => {
    const prompts = topicPrompts(t, range, data);
    return name === "prompts_count" ? prompts.length : prompts.map((p) => p.name);
  },
  resolvers: (data) => {
    const all: Range = { from: null, to: Number.MAX_SAFE_INTEGER };
    return {
      topics: (t) => [t.id, t.name],
      prompts: (t) => topicPrompts(t, all, data).flatMap((p) => [p.id, p.name]),
    };
  },
});

export const listModels = listing<Model>({
  metrics: ["visibility_score", "mentions_count", "share_of_voice"],
  numeric: ["visibility_score", "mentions_count", "share_of_voice"],
  sortFields: ["name"],
  extraFilters: ["name"],
  defaultOrder: { field: "name", order: "asc" },
  rows: (data) => data.models,
  base: (m) => ({ id: m.id, name: m.name, provider: m.provider }),
  metric: (m, name, range, data) => {
    const self = indexOf(data).self.id;
    const answers = data.answers.filter((a) => a.modelId === m.id && inRange(a.date, range));
    const naming = answers.filter((a) => a.websiteIds.includes(self)).length;
    if (name === "visibility_score") return pct(naming, answers.length);
    if (name === "mentions_count") return naming;
    return pct(
      naming,
      answers.reduce((sum, a) => sum + a.websiteIds.length, 0),
    );
  },
  resolvers: () => ({ name: (m) => [m.name], platform: (m) => [m.name] }),
});

export const listWebsites = listing<Website>({
  metrics: ["mentions_count", "visibility_score", "citations_count"],
  numeric: ["mentions_count", "visibility_score", "citations_count"],
  sortFields: ["name", "url"],
  extraFilters: ["url", "name"],
  defaultOrder: { field: "name", order: "asc" },
  rows: (data) => data.websites,
  base: (w) => ({ id: w.id, name: w.name, url: w.url, website_type: w.website_type }),
  metric: (w, name, range, data) => {
    const answers = data.answers.filter((a) => inRange(a.date, range));
    const mentions = answers.filter((a) => a.websiteIds.includes(w.id)).length;
    if (name === "mentions_count") return mentions;
    if (name === "visibility_score") return pct(mentions, answers.length);
    const ix = indexOf(data);
    return answers.reduce(
      (sum, a) => sum + a.citationIds.filter((id) => ix.citation.get(id)?.domain === w.domain).length,
      0,
    );
  },
  resolvers: () => ({
    name: (w) => [w.name],
    url: (w) => [w.url, w.domain],
    website_mentioned_in_answer: (w) => [w.name, w.url],
  }),
});

export const listCitations = listing<Citation>({
  metrics: [],
  numeric: [],
  sortFields: ["url", "domain", "first_seen"],
  extraFilters: ["domain", "url", "path"],
  defaultOrder: { field: "first_seen", order: "desc" },
  rows: (data, range) => data.citations.filter((c) => inRange(created(c.first_seen), range)),
  base: (c) => ({
    id: c.id,
    url: c.url,
    domain: c.domain,
    path: c.path,
    title: c.title,
    model: c.model,
    first_seen: c.first_seen,
  }),
  metric: () => undefined,
  resolvers: () => ({
    domain: (c) => [c.domain],
    url: (c) => [c.url],
    path: (c) => [c.path],
    cited_domain: (c) => [c.domain],
    cited_page_url: (c) => [c.url],
    platform: (c) => [c.model],
  }),
});

export const listKeywords = listing<Keyword>({
  metrics: ["website_count", "subtheme_count", "theme_count"],
  numeric: ["website_count", "subtheme_count", "theme_count"],
  sortFields: ["keyword"],
  extraFilters: ["theme", "subtheme", "websites", "brand_name", "keyword"],
  defaultOrder: { field: "keyword", order: "asc" },
  rows: (data) => data.keywords,
  base: (k) => ({ id: k.id, keyword: k.keyword, theme: k.theme, subtheme: k.subtheme }),
  metric: (k, name, range, data) => {
    const ix = indexOf(data);
    const facts = data.facts.filter((f) => inRange(f.date, range));
    if (name === "website_count")
      return new Set(facts.filter((f) => f.keywordId === k.id).map((f) => f.websiteId)).size;
    const same = (f: { keywordId: string }) => {
      const other = ix.keyword.get(f.keywordId);
      return name === "theme_count"
        ? other?.theme === k.theme
        : other?.theme === k.theme && other.subtheme === k.subtheme;
    };
    return facts.filter(same).reduce((sum, f) => sum + f.occurrences, 0);
  },
  resolvers: (data) => {
    const ix = indexOf(data);
    const sites = (k: Keyword) =>
      [...new Set(data.facts.filter((f) => f.keywordId === k.id).map((f) => f.websiteId))].map(
        (id) => ix.website.get(id)!,
      );
    const about: Resolver<Keyword> = (k) => sites(k).flatMap((w) => [w.id, w.name, w.url]);
    return {
      keyword: (k) => [k.keyword],
      theme: (k) => [k.theme],
      subtheme: (k) => [k.subtheme],
      websites: about,
      brand_name: (k) => sites(k).map((w) => w.name),
    };
  },
});
