// The injection corpus as every tool's upstream would send it: each attack and each benign text in a
// field that the tool's concise form keeps, so that both forms carry all of it.
import {
  ATTACKS,
  ATTACKS_SANITIZED,
  BENIGN,
  MARKDOWN,
  MARKDOWN_SANITIZED,
} from "../src/sandbox/hostile-text.js";

export { ATTACKS, ATTACKS_SANITIZED, BENIGN, MARKDOWN, MARKDOWN_SANITIZED };

const TASK = "55555555-5555-4555-8555-555555555555";
const ID = "66666666-6666-4666-8666-666666666666";

/** Every corpus text, attacks first. */
export const CORPUS: readonly string[] = [
  ...Object.values(ATTACKS),
  ...Object.values(MARKDOWN),
  ...Object.values(BENIGN),
];

/** What each corpus text must read as in an answer. */
export const EXPECTED = new Map<string, string>([
  ...Object.entries(ATTACKS).map(
    ([kind, text]) => [text, ATTACKS_SANITIZED[kind as keyof typeof ATTACKS]] as const,
  ),
  ...Object.entries(MARKDOWN).map(
    ([kind, text]) => [text, MARKDOWN_SANITIZED[kind as keyof typeof MARKDOWN]] as const,
  ),
  ...Object.values(BENIGN).map((text) => [text, text] as const),
]);

/** One row per corpus text, in the fields the tool's concise form keeps. */
const rows = (row: (text: string) => Record<string, unknown>) => CORPUS.map(row);
const listing = (row: (text: string) => Record<string, unknown>) => ({
  data: rows(row),
  info: { total_rows: CORPUS.length },
});

/** Each tool: arguments that reach the upstream, and the upstream's answer carrying the corpus. */
export const HOSTILE_CALLS: Record<string, { args: Record<string, unknown>; body: unknown }> = {
  whoami: { args: {}, body: { user: { name: ATTACKS.tags }, projects: rows((name) => ({ id: ID, name })) } },
  tasks_query: {
    args: {},
    body: {
      items: rows((title) => ({ id: ID, identifier: "INB-1", title, description: title, status: "todo" })),
      has_more: false,
    },
  },
  tasks_comments: {
    args: { task_id: TASK, body: "noted" },
    body: {
      id: ID,
      task_id: TASK,
      body: ATTACKS.htmlComment,
      attachments: rows((filename) => ({ id: ID, filename, content_type: "text/plain" })),
    },
  },
  agent_runs_query: {
    args: { scope: "task_runs", task_id: TASK },
    body: {
      items: rows((error_message) => ({
        id: ID,
        status: "failed",
        error_message,
        failure_reason: error_message,
      })),
    },
  },
  attachments_download_url: {
    args: { target: "task", attachment_id: ID, task_id: TASK },
    body: {
      url: "https://files.example/a?sig=1&exp=2",
      filename: ATTACKS.bidi,
      content_type: ATTACKS.controls,
    },
  },
  geo_projects: { args: {}, body: { data: rows((name) => ({ id: ID, name, url: "https://example.com" })) } },
  geo_prompts: {
    args: {},
    body: listing((answer) => ({
      id: ID,
      name: answer,
      answers: [{ date: "2026-01-01", answer, model: answer }],
    })),
  },
  geo_tags: {
    args: {},
    body: listing((name) => ({
      id: ID,
      name,
      category: name,
      queries: [name],
      competitors: [{ name, url: name }],
    })),
  },
  geo_topics: { args: {}, body: listing((name) => ({ id: ID, name, prompts: [name] })) },
  geo_models: { args: {}, body: listing((name) => ({ name })) },
  geo_websites: { args: {}, body: listing((name) => ({ name, url: name })) },
  geo_citations: { args: {}, body: listing((title) => ({ title, url: title })) },
  geo_keywords: { args: {}, body: listing((keyword) => ({ keyword, theme: keyword })) },
  geo_reports_sentiments: { args: {}, body: listing((topic) => ({ topic, model: topic })) },
};
