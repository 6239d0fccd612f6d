// Shapes of the seeded visibility-analytics world.

export interface AnalyticsProject {
  id: string;
  name: string;
  url: string;
  created_at: string;
  /** API keys that may read this project. */
  keys: string[];
}

export interface Topic {
  id: string;
  name: string;
  created_date: string;
}

export interface Tag {
  id: string;
  name: string;
  created_date: string;
  category: string;
  color: string;
  slug: string;
  competitorIds: string[];
}

export interface Website {
  id: string;
  name: string;
  url: string;
  domain: string;
  website_type: "SELF" | "COMPETITOR";
}

export interface Model {
  id: string;
  name: string;
  provider: string;
}

export interface Prompt {
  id: string;
  name: string;
  created_date: string;
  intent: Array<{ name: string; value: number }>;
  source: string[];
  search_volume: number;
  topicId: string;
  tagIds: string[];
  market: string;
  branded: boolean;
  disabled: boolean;
}

export interface Answer {
  promptId: string;
  /** Epoch ms. */
  date: number;
  modelId: string;
  text: string;
  websiteIds: string[];
  citationIds: string[];
}

export interface Citation {
  id: string;
  url: string;
  domain: string;
  path: string;
  title: string;
  model: string;
  first_seen: string;
}

export interface Keyword {
  id: string;
  keyword: string;
  theme: string;
  subtheme: string;
  polarity: "positive" | "negative" | "neutral";
}

/** One observation: a keyword used about a website in an answer to a prompt. */
export interface SentimentFact {
  date: number;
  promptId: string;
  modelId: string;
  websiteId: string;
  keywordId: string;
  occurrences: number;
}

export interface ProjectData {
  topics: Topic[];
  tags: Tag[];
  prompts: Prompt[];
  answers: Answer[];
  models: Model[];
  websites: Website[];
  citations: Citation[];
  keywords: Keyword[];
  facts: SentimentFact[];
}

export interface AnalyticsIds {
  analyticsProjects: string[];
  forbiddenAnalyticsProjectId: string;
  singleKeyAnalyticsProjectId: string;
}

export interface AnalyticsData {
  projects: AnalyticsProject[];
  data: Map<string, ProjectData>;
  ids: AnalyticsIds;
}
