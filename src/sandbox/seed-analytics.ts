// Seeded visibility-analytics world: four projects; the default one has ~40
// prompts answered every few days over 90 days by five models, with website
// mentions, citations and sentiment keyword observations.

import type {
  AnalyticsData,
  AnalyticsProject,
  Keyword,
  ProjectData,
  Prompt,
  Website,
} from "./analytics-types.js";
import { DAY, EPOCH_MS, HOUR, iso, isoDate, MINUTE, Rng, seconds } from "./random.js";
import { hostileAnalyticsProject, seedHostileAnalytics } from "./seed-hostile.js";

const DAY0 = Date.UTC(2026, 0, 15);
/** Answers are collected daily up to (and excluding) the seeded "today". */
export const DATA_FROM = DAY0 - 90 * DAY;
/** "today" ends at the end of the epoch's day; an omitted end_date means this. */
export const TODAY_END = DAY0 + DAY - 1;
/** The latest run covers the last seven collected days. */
export const LATEST_RUN = { from: DAY0 - 7 * DAY, to: DAY0 - 1 };

const MODELS: Array<readonly [string, string]> = [
  ["ChatGPT", "OpenAI"],
  ["Gemini", "Google"],
  ["Claude", "Anthropic"],
  ["Perplexity", "Perplexity"],
  ["Copilot", "Microsoft"],
];
const BRANDS = [
  "Globex",
  "Initech",
  "Umbrella",
  "Hooli",
  "Wonka",
  "Cyberdyne",
  "Soylent",
  "Tyrell",
  "Vandelay",
];
const MORE_BRANDS = [
  "Pied Piper",
  "Dunder Mifflin",
  "Aperture",
  "Massive Dynamic",
  "Stark Works",
  "Wayne Tools",
];
const TOPICS = [
  "Project management",
  "Team collaboration",
  "Pricing",
  "Integrations",
  "Security",
  "AI features",
  "Reporting",
  "Customer support",
];
const AUDIENCES = ["agencies", "startups", "enterprises", "remote teams", "freelancers", "nonprofits"];
const TEMPLATES = [
  (t: string, a: string) => `best ${t.toLowerCase()} software for ${a}`,
  (t: string, a: string) => `which ${t.toLowerCase()} tool do ${a} recommend`,
  (t: string, a: string, brand: string) => `is ${brand} good for ${t.toLowerCase()} at ${a}`,
  (t: string, a: string, brand: string, rival: string) => `${brand} vs ${rival} ${t.toLowerCase()} for ${a}`,
];
const INTENTS = ["informational", "commercial", "navigational", "transactional"];
const SOURCES = [["manual"], ["suggested"], ["import"], ["manual", "gsc"]];
const TAGS: Array<readonly [string, string]> = [
  ["Top of funnel", "Funnel"],
  ["Bottom of funnel", "Funnel"],
  ["Persona: CTO", "Persona"],
  ["Persona: Marketer", "Persona"],
  ["Campaign Q1", "Campaign"],
  ["Brand defense", "Campaign"],
  ["Competitor watch", "Competition"],
  ["Pricing pages", "Content"],
  ["How-to", "Content"],
  ["Enterprise", "Segment"],
  ["SMB", "Segment"],
  ["Launch 2026", "Campaign"],
];
const COLORS = ["#e11d48", "#2563eb", "#16a34a", "#f59e0b", "#7c3aed", "#0891b2"];
// theme -> subtheme -> [polarity, keywords]
const KEYWORD_BANK: Record<string, Record<string, readonly [Keyword["polarity"], string[]]>> = {
  Price: {
    Affordable: ["positive", ["affordable", "good value", "cheap plans", "fair pricing"]],
    Expensive: ["negative", ["overpriced", "expensive", "hidden fees", "costly add-ons"]],
    "Free tier": ["neutral", ["free plan", "trial period", "freemium"]],
  },
  Usability: {
    "Easy to use": ["positive", ["intuitive", "easy setup", "clean interface", "quick onboarding"]],
    "Learning curve": ["negative", ["confusing", "steep learning curve", "cluttered ui"]],
  },
  Support: {
    Responsive: ["positive", ["helpful support", "fast response", "great docs"]],
    Slow: ["negative", ["slow support", "no phone support", "outdated docs"]],
  },
  Features: {
    Integrations: ["positive", ["many integrations", "slack integration", "open api", "zapier support"]],
    Automation: ["positive", ["automation", "ai assistant", "smart templates", "workflow builder"]],
    Reporting: ["neutral", ["dashboards", "custom reports", "exports", "time tracking"]],
  },
  Reliability: {
    Uptime: ["positive", ["reliable", "stable", "fast sync", "high uptime"]],
    Bugs: ["negative", ["buggy", "outages", "data loss", "slow loading"]],
  },
  Security: {
    Compliance: ["positive", ["soc 2", "gdpr ready", "sso support"]],
    Risks: ["negative", ["security concerns", "data breaches", "weak permissions"]],
  },
};

interface Size {
  prompts: number;
  tags: number;
  topics: number;
  websites: number;
  citations: number;
  keywords: number;
}

/**
 * The seed's first part: the projects (the Inbox one too) and the random streams their data continue
 * from. Cheap: a sandbox knows its default project from here, before the answers are seeded.
 */
export interface AnalyticsDirectory {
  rng: Rng;
  /** Acme, Acme Labs, Globex, Initech, Inbox. */
  projects: AnalyticsProject[];
  inboxRng: Rng;
}

export function seedAnalytics(mainKey: string, singleKey: string): AnalyticsData {
  return seedAnalyticsFrom(seedAnalyticsDirectory(mainKey, singleKey));
}

export function seedAnalyticsDirectory(mainKey: string, singleKey: string): AnalyticsDirectory {
  const rng = new Rng(0x6e0_2026);
  const project = (name: string, url: string, daysAgo: number, keys: string[]): AnalyticsProject => ({
    id: rng.uuid(),
    name,
    url,
    created_at: iso(EPOCH_MS - daysAgo * DAY - 5 * HOUR),
    keys,
  });
  const acme = project("Acme", "https://www.acme.example", 400, [mainKey]);
  const labs = project("Acme Labs", "https://labs.acme.example", 150, [mainKey]);
  const globex = project("Globex", "https://www.globex.example", 300, []);
  const initech = project("Initech", "https://www.initech.example", 200, [singleKey]);
  // Its own random stream, so its place here changes nothing else.
  const inbox = hostileAnalyticsProject(mainKey);
  return { rng, projects: [acme, labs, globex, initech, inbox.project], inboxRng: inbox.rng };
}

/** The projects' data; once per directory (it draws on its streams). */
export function seedAnalyticsFrom(directory: AnalyticsDirectory): AnalyticsData {
  const { rng, projects } = directory;
  const [acme, labs, globex, initech, inbox] = projects as [
    AnalyticsProject,
    AnalyticsProject,
    AnalyticsProject,
    AnalyticsProject,
    AnalyticsProject,
  ];
  const small: Size = { prompts: 12, tags: 4, topics: 3, websites: 6, citations: 15, keywords: 15 };
  const data = new Map<string, ProjectData>([
    [
      acme.id,
      seedProject(rng, "Acme", {
        prompts: 40,
        tags: 12,
        topics: 8,
        websites: 15,
        citations: 60,
        keywords: 50,
      }),
    ],
    [labs.id, seedProject(rng, "Acme Labs", small)],
    [globex.id, seedProject(rng, "Globex", small)],
    [initech.id, seedProject(rng, "Initech", small)],
  ]);
  data.set(inbox.id, seedHostileAnalytics({ rng: directory.inboxRng }));
  return {
    projects,
    data,
    ids: {
      analyticsProjects: [acme.id, labs.id, inbox.id],
      forbiddenAnalyticsProjectId: globex.id,
      singleKeyAnalyticsProjectId: initech.id,
    },
  };
}

const slugify = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");

/**
 * The citations first seen by an instant, in list order (the order the answers sample them in). The
 * list changes only where an instant passes a citation's first_seen, so each distinct list is built once
 * and shared, rather than filtering every citation for every answer.
 */
function citableLists<C extends { first_seen: string }>(citations: C[]): (at: number) => C[] {
  const times = citations.map((c) => Date.parse(c.first_seen));
  const ascending = [...times].sort((a, b) => a - b);
  const bySeenCount: C[][] = [];
  return (at) => {
    let seen = 0; // how many first_seen times are <= at: a binary search over the sorted times
    for (let high = ascending.length; seen < high; ) {
      const mid = (seen + high) >>> 1;
      if (ascending[mid]! <= at) seen = mid + 1;
      else high = mid;
    }
    let list = bySeenCount[seen];
    if (!list) {
      const last = seen === 0 ? -Infinity : ascending[seen - 1]!;
      list = citations.filter((_, i) => times[i]! <= last);
      bySeenCount[seen] = list;
    }
    return list;
  };
}

function seedProject(rng: Rng, brand: string, size: Size): ProjectData {
  const models = MODELS.map(([name, provider]) => ({ id: rng.uuid(), name, provider }));
  const rivals = [...BRANDS, ...MORE_BRANDS].filter((b) => b !== brand);
  const websites: Website[] = [brand, ...rivals.slice(0, size.websites - 1)].map((name, i) => {
    const domain = `www.${slugify(name)}.example`;
    return {
      id: rng.uuid(),
      name,
      url: `https://${domain}`,
      domain,
      website_type: i === 0 ? "SELF" : "COMPETITOR",
    };
  });
  const competitors = websites.slice(1);
  const topics = TOPICS.slice(0, size.topics).map((name) => ({
    id: rng.uuid(),
    name,
    created_date: isoDate(EPOCH_MS - rng.int(100, 180) * DAY),
  }));
  const tags = TAGS.slice(0, size.tags).map(([name, category], i) => ({
    id: rng.uuid(),
    name,
    created_date: isoDate(EPOCH_MS - rng.int(20, 170) * DAY),
    category,
    color: COLORS[i % COLORS.length]!,
    slug: slugify(name),
    competitorIds: rng.sample(competitors, rng.int(0, 4)).map((w) => w.id),
  }));

  const prompts: Prompt[] = [];
  const names = new Set<string>();
  while (prompts.length < size.prompts) {
    const topic = rng.pick(topics);
    const template = rng.int(0, TEMPLATES.length - 1);
    const name = TEMPLATES[template]!(topic.name, rng.pick(AUDIENCES), brand, rng.pick(competitors).name);
    if (names.has(name)) continue;
    names.add(name);
    const [main, second] = rng.sample(INTENTS, 2) as [string, string];
    const split = rng.int(55, 100);
    prompts.push({
      id: rng.uuid(),
      name,
      created_date: iso(seconds(EPOCH_MS - rng.int(3, 150) * DAY - rng.int(0, 600) * MINUTE)),
      intent:
        split === 100
          ? [{ name: main, value: 100 }]
          : [
              { name: main, value: split },
              { name: second, value: 100 - split },
            ],
      source: rng.pick(SOURCES),
      search_volume: rng.int(1, 5000) * 10,
      topicId: topic.id,
      tagIds: rng.sample(tags, rng.int(0, 3)).map((t) => t.id),
      market: rng.pick(["US", "UK", "DE", "FR"]),
      branded: template >= 2,
      disabled: rng.chance(0.1),
    });
  }

  const linkDomains = [...websites.map((w) => w.domain), "en.wikipedia.org", "www.reddit.com", "www.g2.com"];
  const citations = Array.from({ length: size.citations }, (_, i) => {
    const domain = rng.pick(linkDomains);
    const title = `${rng.pick(TOPICS)}: ${rng.pick(["a buyer's guide", "pricing explained", "top picks", "review"])}`;
    const path = `/${rng.pick(["blog", "guides", "reviews", "compare"])}/${slugify(title)}-${i + 1}`;
    return {
      id: rng.uuid(),
      url: `https://${domain}${path}`,
      domain,
      path,
      title,
      model: rng.pick(MODELS)[0],
      first_seen: iso(seconds(DATA_FROM + rng.int(0, 88) * DAY + rng.int(0, 1439) * MINUTE)),
    };
  });

  const citableAt = citableLists(citations);
  const answers: ProjectData["answers"] = [];
  prompts.forEach((prompt, p) => {
    const born = Date.parse(prompt.created_date);
    for (let day = DATA_FROM; day < DAY0; day += DAY) {
      if ((Math.round((day - DATA_FROM) / DAY) + p) % 3 !== 0 || day + DAY < born) continue;
      for (const model of rng.sample(models, rng.int(1, 2))) {
        const date = seconds(day + 6 * HOUR + rng.int(0, 600) * MINUTE);
        const namesSelf = rng.chance(0.45);
        const rivals = rng.sample(competitors, rng.int(0, 3));
        const mentioned = namesSelf ? [websites[0]!, ...rivals] : rivals;
        const citable = citableAt(date);
        answers.push({
          promptId: prompt.id,
          date,
          modelId: model.id,
          text: mentioned.length
            ? `${model.name} suggests ${mentioned.map((w) => w.name).join(", ")} for "${prompt.name}".`
            : `${model.name} gives general advice for "${prompt.name}" without naming vendors.`,
          websiteIds: mentioned.map((w) => w.id),
          citationIds: rng.sample(citable, rng.int(0, 2)).map((c) => c.id),
        });
      }
    }
  });

  const bank = Object.entries(KEYWORD_BANK).flatMap(([theme, subs]) =>
    Object.entries(subs).flatMap(([subtheme, [polarity, words]]) =>
      words.map((keyword) => ({ keyword, theme, subtheme, polarity })),
    ),
  );
  const keywords: Keyword[] = bank.slice(0, size.keywords).map((k) => ({ id: rng.uuid(), ...k }));

  const facts: ProjectData["facts"] = [];
  for (let day = DATA_FROM; day < DAY0; day += DAY) {
    for (let n = rng.int(4, 10); n > 0; n--) {
      facts.push({
        date: seconds(day + rng.int(0, 1439) * MINUTE),
        promptId: rng.pick(prompts).id,
        modelId: rng.pick(models).id,
        websiteId: rng.chance(0.4) ? websites[0]!.id : rng.pick(competitors).id,
        keywordId: rng.pick(keywords).id,
        occurrences: rng.int(1, 6),
      });
    }
  }
  return { topics, tags, prompts, answers, models, websites, citations, keywords, facts };
}
