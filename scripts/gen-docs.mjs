// `npm run docs`: writes the parts of README.md, docs/*.md and bench/README.md that restate the code
// (the tools table, the per-tool reference, the error texts, every figure `npm run tool-size` prints,
// the bench's lines) between
// `<!-- generated: NAME -->` and `<!-- end -->`. The prose around them is hand-written and left alone.
// `test/docs/generated.test.ts` runs the same generator on the sources and fails when a file differs.
import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { measureFigures } from "./figures.mjs";

const ROOT = new URL("../", import.meta.url);

/** The modules the docs are made from, by the name the generator knows each by: its path under src/. */
const MODULES = {
  register: "tools/register.js",
  answers: "tools/answers.js",
  errors: "tools/errors.js",
  clientErrors: "clients/errors.js",
  config: "config/settings.js",
  retry: "clients/retry.js",
  contextCost: "build/context-cost.js",
  selection: "tools/selection.js",
  schemas: "tools/schemas.js",
  tokens: "tools/tokens.js",
  prompts: "prompts/definitions.js",
  workflowExamples: "build/workflow-examples.js",
};

/** The modules the docs are made from, from dist/ (this script) or src/ (the test). */
export async function loadCode(dir) {
  const entries = Object.entries(MODULES);
  const loaded = await Promise.all(entries.map(([, path]) => import(new URL(`${dir}/${path}`, ROOT).href)));
  return Object.fromEntries(entries.map(([name], i) => [name, loaded[i]]));
}

// ---------------------------------------------------------------- markdown helpers
const cell = (text) => String(text).replaceAll("|", "\\|").replaceAll("\n", " ");
const row = (cells) => `| ${cells.map(cell).join(" | ")} |`;
const code = (text) => `\`${text}\``;
const number = (n) => n.toLocaleString("en-US");

// ---------------------------------------------------------------- the tools table (README)
function toolsTable({ register }) {
  return [
    "| tool | what it does | REST endpoint |",
    "|---|---|---|",
    ...register.ENDPOINTS.map((e) => row([code(e.name), e.summary, `${e.method} ${code(e.path)}`])),
  ].join("\n");
}

// ---------------------------------------------------------------- the prompts table (README)
function promptsTable({ prompts }) {
  const names = (prompt, required) =>
    prompt.arguments.filter((a) => a.required === required).map((a) => code(a.name));
  return [
    "| prompt | arguments |",
    "|---|---|",
    ...prompts.PROMPTS.map((prompt) => {
      const optional = names(prompt, false);
      const args = [
        names(prompt, true).join(", "),
        ...(optional.length ? [`optional ${optional.join(", ")}`] : []),
      ];
      return row([code(prompt.name), args.join("; ")]);
    }),
  ].join("\n");
}

// ---------------------------------------------------------------- the GEO workflows (docs/prompts.md)
/** JSON indented by object, each list of plain values (a row, the columns) on one line. */
const compactJson = (value) =>
  JSON.stringify(value, null, 2).replace(
    /\[\n([^[\]{}]*?)\n\s*\]/g,
    (_all, inner) =>
      `[${inner
        .trim()
        .split(/,\n\s*/)
        .join(", ")}]`,
  );

async function workflowSections({ workflowExamples }) {
  const examples = await workflowExamples.workflowExamples();
  return examples
    .map((example) => {
      const given = Object.entries(example.arguments)
        .map(([name, value]) => `${code(name)}: ${value}`)
        .join(", ");
      return [
        `### ${code(example.name)}: ${example.title}`,
        "",
        example.description,
        "",
        `Its calls, as the skill ${code(example.name.replaceAll("_", "-"))} writes them (the prompt fills in the slots):`,
        "",
        example.steps,
        "",
        `On ${code("--demo")}, with ${given}, the first call (${code(example.tool)}, here with ${code('pagination: {"limit":3}')}) answers, concise:`,
        "",
        "```json",
        compactJson(JSON.parse(example.answer)),
        "```",
      ].join("\n");
    })
    .join("\n\n");
}

// ---------------------------------------------------------------- the per-tool reference
/** An argument's type as the published JSON Schema gives it. */
function typeOf(schema) {
  if (schema.const !== undefined) return code(JSON.stringify(schema.const));
  if (schema.enum) return schema.enum.map((value) => code(JSON.stringify(value))).join(" or ");
  if (schema.format === "uuid") return "uuid";
  if (schema.type === "array") return `list of ${schema.items ? typeOf(schema.items) : "any"}`;
  if (Array.isArray(schema.type)) return schema.type.join(" or ");
  return schema.type ?? "any";
}

/** What the schema itself enforces beyond the type: ranges, uuid form, list length. */
function rangeOf(schema) {
  const rules = [];
  if (schema.minimum !== undefined && schema.maximum !== undefined)
    rules.push(`${schema.minimum}–${schema.maximum}`);
  else if (schema.minimum !== undefined) rules.push(`≥ ${schema.minimum}`);
  else if (schema.maximum !== undefined) rules.push(`≤ ${schema.maximum}`);
  if (schema.minItems !== undefined) rules.push(`at least ${schema.minItems} items`);
  return rules;
}

/** One row per argument, nested ones by dotted path (`[]` for the items of a list). */
function argumentRows(schema, prefix, parentRequired, rows) {
  const required = new Set(schema.required ?? []);
  for (const [key, field] of Object.entries(schema.properties ?? {})) {
    const path = prefix ? `${prefix}.${key}` : key;
    const rules = [];
    if (required.has(key)) rules.push(prefix && !parentRequired ? `required in ${code(prefix)}` : "required");
    rules.push(...rangeOf(field));
    const items = field.type === "array" ? field.items : undefined;
    if (items && items.type !== "object") rules.push(...rangeOf(items));
    rows.push(
      row([
        code(path),
        typeOf(field),
        rules.join("; "),
        field.default === undefined ? "" : code(JSON.stringify(field.default)),
        [field.description, items?.description && `Each: ${items.description}`].filter(Boolean).join(" "),
      ]),
    );
    const isRequired = required.has(key) && (prefix === "" || parentRequired);
    if (field.type === "object" && field.properties) argumentRows(field, path, isRequired, rows);
    if (items?.type === "object" && items.properties) argumentRows(items, `${path}[]`, isRequired, rows);
  }
  return rows;
}

/** A concise form in words. */
function formText({ answers }, form) {
  if (!form) return "the answer as it comes";
  const parts = [
    `${code(form.rows)}: ${form.keep ? form.keep.map(code).join(", ") : "every field"} of each row${form.keep && !form.table ? ", those that are null left out" : ""}`,
  ];
  if (form.table) parts.push("as one `{columns, rows}` table");
  if (form.alsoRows) parts.push(`${form.alsoRows.map(code).join(", ")} shaped the same`);
  if (form.cut) parts.push(`${form.cut.map(code).join(", ")} cut at ${answers.TEXT_LIMIT} characters`);
  const paging = {
    none: "over the budget, rows go from the end and the note says to narrow the arguments",
    offset: "over the budget, rows go from the end and `next_call` pages on by offset",
  };
  parts.push(
    typeof form.paging === "string"
      ? paging[form.paging]
      : `over the budget, rows go from the end and \`next_call\` asks for a page of the rows shown (${code(form.paging.size)})`,
  );
  return parts.join("; ");
}

/** What the concise form keeps; a form chosen by an argument is given for each of its values. */
function conciseText(code_, definition, inputSchema) {
  const concise = definition.concise;
  if (typeof concise !== "function") return formText(code_, concise);
  for (const [key, field] of Object.entries(inputSchema.properties)) {
    if (!field.enum || key === "response_format") continue;
    const texts = field.enum.map((value) => formText(code_, concise({ [key]: value })));
    if (new Set(texts).size > 1)
      return field.enum
        .map((value, i) => `${code(`${key}: ${JSON.stringify(value)}`)}: ${texts[i]}`)
        .join(". ");
  }
  return formText(code_, concise({}));
}

/** Arguments accepted but left out of the published schema (the spec's aliases). */
function unpublishedText({ schemas }, definition) {
  const names = Object.entries(definition.input.shape)
    .filter(([, field]) => schemas.UNPUBLISHED.has(field))
    .map(([name, field]) => `${code(name)} (${field.description.replace(/\.$/, "")})`);
  return names.length ? `Also accepted, not published: ${names.join(", ")}.` : undefined;
}

function toolReference(modules) {
  const { register } = modules;
  const sections = [];
  for (const { definition, published } of register.PREPARED_TOOLS.values()) {
    const { annotations } = published;
    const lines = [
      `### ${code(definition.name)}`,
      "",
      `${definition.method} ${code(definition.path)} (${definition.api} API${definition.projectScoped ? ", one project" : ""}). ${definition.summary[0].toUpperCase()}${definition.summary.slice(1)}.`,
      "",
      "| argument | type | rules | default | description |",
      "|---|---|---|---|---|",
      ...argumentRows(published.inputSchema, "", true, []),
      "",
    ];
    const checks = [...(definition.checks ?? []), unpublishedText(modules, definition)].filter(Boolean);
    if (checks.length) lines.push(`Checked before sending: ${checks.join(" ")}`, "");
    lines.push(
      `Concise form: ${conciseText(modules, definition, published.inputSchema)}.`,
      "",
      `Retried on its own: ${definition.readOnly ? "yes (429, 502, 503, 504, timeout, refused or reset connection)" : "only when the connection was refused (it creates data)"}.`,
      `Annotations: ${Object.entries(annotations)
        .filter(([key]) => key !== "title")
        .map(([key, value]) => `${key} ${value}`)
        .join(", ")}.`,
    );
    sections.push(lines.join("\n"));
  }
  return sections.join("\n\n");
}

// ---------------------------------------------------------------- error texts
/** The text a failure gives, written by the code that writes it (src/tools/errors.ts). */
function errorText({ register, errors }, toolName, error, settings = {}) {
  const definition = register.PREPARED_TOOLS.get(toolName).definition;
  return errors.toolErrorResult(definition, error, settings).content[0].text;
}

/** Attempts a hung upstream gets: one per timeout that starts within the retry budget. */
function attemptsOfHungCall({ retry }, timeoutMs, budgetMs) {
  let attempts = 1;
  while (attempts < retry.MAX_ATTEMPTS && attempts * timeoutMs < budgetMs) attempts++;
  return attempts;
}

const defaultOf = ({ config }, env) => config.SETTINGS.find((setting) => setting.env === env).default;

function errorExamples(modules) {
  const { clientErrors: E } = modules;
  const timeoutMs = defaultOf(modules, "UPSTREAM_TIMEOUT_MS");
  const budgetMs = defaultOf(modules, "UPSTREAM_RETRY_BUDGET_MS");
  const maxBytes = defaultOf(modules, "UPSTREAM_MAX_BYTES");
  const retried = (error, attempts) => Object.assign(error, { attempts });
  const origin = "http://127.0.0.1:8080";
  return [
    ["401", "tasks_query", new E.UpstreamHttpError(401, { detail: "Invalid API key" }, undefined)],
    [
      "401, an analytics tool",
      "geo_prompts",
      new E.UpstreamHttpError(401, { detail: "Invalid API key" }, undefined),
    ],
    [
      "401, over HTTP with a user's X-API-KEY header",
      "tasks_query",
      new E.UpstreamHttpError(401, { detail: "Invalid API key" }, undefined),
      { apiKeySource: "header" },
    ],
    ["403", "tasks_query", new E.UpstreamHttpError(403, { detail: "No access to this project" }, undefined)],
    ["404", "agent_runs_query", new E.UpstreamHttpError(404, { detail: "Run not found" }, undefined)],
    [
      "404 that is not the API's (a wrong base URL, a proxy's page)",
      "whoami",
      new E.UpstreamHttpError(404, "404 Not Found nginx", undefined),
    ],
    [
      "422",
      "geo_prompts",
      new E.UpstreamHttpError(
        422,
        { detail: [{ loc: ["body", "order_by", 0, "field"], msg: "unknown field" }] },
        undefined,
      ),
    ],
    [
      "429 with a Retry-After beyond the budget",
      "geo_prompts",
      Object.assign(new E.UpstreamHttpError(429, { detail: "slow down" }, "120"), { attempts: 1 }),
    ],
    [
      "502 on every attempt",
      "geo_citations",
      retried(new E.UpstreamHttpError(502, "502 Bad Gateway nginx", undefined), modules.retry.MAX_ATTEMPTS),
    ],
    [
      `hung upstream, default timeout and budget (${number(timeoutMs)} / ${number(budgetMs)} ms)`,
      "tasks_query",
      retried(
        new E.UpstreamNetworkError(origin, "timeout", timeoutMs),
        attemptsOfHungCall(modules, timeoutMs, budgetMs),
      ),
    ],
    [
      "connection reset on every attempt",
      "tasks_query",
      retried(new E.UpstreamNetworkError(origin, "ECONNRESET"), modules.retry.MAX_ATTEMPTS),
    ],
    [
      "connection refused on every attempt",
      "whoami",
      retried(new E.UpstreamNetworkError(origin, "ECONNREFUSED"), modules.retry.MAX_ATTEMPTS),
    ],
    [
      "`tasks_comments` after a 503",
      "tasks_comments",
      new E.UpstreamHttpError(503, { detail: "unavailable" }, undefined),
    ],
    [
      "`tasks_comments` after a timeout",
      "tasks_comments",
      new E.UpstreamNetworkError(origin, "timeout", timeoutMs),
    ],
    ["body over the size bound", "geo_keywords", new E.UpstreamTooLargeError(maxBytes)],
    ["2xx that is not JSON", "whoami", new E.UpstreamBodyError(200, "text/html", "maintenance")],
  ].map(([condition, tool, error, settings]) => ({
    condition,
    tool,
    text: errorText(modules, tool, error, settings),
  }));
}

/** The examples as a table; `only` picks those whose condition starts with one of its words. */
function errorTable(modules, only) {
  const examples = errorExamples(modules).filter(
    ({ condition }) => !only || only.some((start) => condition.startsWith(start)),
  );
  return [
    "| condition | tool | what the assistant reads |",
    "|---|---|---|",
    ...examples.map(({ condition, tool, text }) => row([condition, code(tool), code(text)])),
  ].join("\n");
}

/** The upstream failures docs/failure-behaviour.md is about: bounds, retries and what they end in. */
const FAILURE_CONDITIONS = ["429", "502", "hung", "connection reset", "`tasks_comments`", "body over", "2xx"];

// ---------------------------------------------------------------- figures (npm run tool-size)
function toolSizeText(figures) {
  const all = figures.toolsets.at(-1);
  return `What a model sees of the ${all.tools} tools (names, descriptions and input schemas, compact JSON) is **${number(all.bytes)} bytes**, ${number(all.o200k)} o200k tokens; the whole \`tools/list\` answer, with output schemas and annotations, is ${number(all.wholeBytes)} bytes.`;
}

function toolsetTable(figures) {
  return [
    "| toolset | tools | definitions, bytes | o200k tokens | whole tools/list, bytes |",
    "|---|---:|---:|---:|---:|",
    ...figures.toolsets.map((t) =>
      row([t.label, t.tools, number(t.bytes), number(t.o200k), number(t.wholeBytes)]),
    ),
  ].join("\n");
}

const leftOut = (n, what) => (n ? `, ${number(n)} ${what} left out` : "");

function callTable(figures) {
  const all = figures.toolsets.at(-1);
  return [
    "| o200k tokens (sandbox) | upstream body | concise (default) | full | concise / upstream | bound |",
    "|---|---:|---:|---:|---:|---:|",
    row([
      `the ${all.tools} tool definitions (name, description, input schema)`,
      "",
      number(all.o200k),
      number(all.o200k),
      "",
      "",
    ]),
    ...figures.calls.map((c) =>
      row([
        c.label,
        number(c.upstream),
        `${number(c.concise)}${leftOut(c.leftOutConcise, "rows")}`,
        `${number(c.full)}${leftOut(c.leftOutFull, "rows")}`,
        `${c.share} %`,
        `${c.bound} %`,
      ]),
    ),
  ].join("\n");
}

/** How far the run-time estimate and Claude's count are from o200k on the typical calls' texts. */
function ratioText(figures) {
  const range = (key) => {
    const ratios = figures.calls.flatMap((c) => c[key]).map((r) => Math.round((r - 1) * 100));
    return `${Math.min(...ratios)} to ${Math.max(...ratios)} %`;
  };
  const texts = figures.calls.length * 3;
  return `On the ${texts} texts of the typical calls above (upstream body, full and concise answer of each), the estimate is ${range("estimateRatios")} above o200k, and Claude's tokenizer counts ${range("claudeRatios")} more than o200k.`;
}

/** README's short form: the definitions and the calls it names. */
function readmeCostTable(figures) {
  const all = figures.toolsets.at(-1);
  const pick = [
    "tasks_query list (default page of 50)",
    "tasks_query list, page of 100",
    "geo_reports_sentiments by topic, model and date",
  ];
  return [
    "| o200k tokens (sandbox) | upstream body | concise | full |",
    "|---|---:|---:|---:|",
    row([`the ${all.tools} tool definitions`, "", number(all.o200k), number(all.o200k)]),
    ...pick
      .map((label) => figures.calls.find((c) => c.label === label))
      .map((c) =>
        row([
          c.label,
          number(c.upstream),
          `${number(c.concise)}${leftOut(c.leftOutConcise, "rows")}`,
          `${number(c.full)}${leftOut(c.leftOutFull, "rows")}`,
        ]),
      ),
  ].join("\n");
}

// ---------------------------------------------------------------- the files
/** Each file's generated sections, by name. */
export async function generatedSections(modules) {
  const figures = await measureFigures(modules);
  return {
    "README.md": {
      tools: toolsTable(modules),
      prompts: promptsTable(modules),
      "context-cost": readmeCostTable(figures),
    },
    "docs/tools.md": {
      "tool-size": toolSizeText(figures),
      reference: toolReference(modules),
      errors: errorTable(modules),
      toolsets: toolsetTable(figures),
    },
    "docs/context-cost.md": { calls: callTable(figures), ratios: ratioText(figures) },
    "docs/prompts.md": { workflows: await workflowSections(modules) },
    "bench/README.md": { lines: modules.benchLines.linesTable() },
    "docs/performance.md": {
      lines: modules.benchLines.linesTable(),
      record: modules.benchRecord.recordSection(
        JSON.parse(readFileSync(new URL(modules.benchRecord.RECORD_FILE, ROOT), "utf8")),
      ),
    },
    "docs/failure-behaviour.md": {
      progress: code(
        modules.retry.describeRetry({
          attempt: 1,
          maxAttempts: modules.retry.MAX_ATTEMPTS,
          delayMs: 400,
          reason: "upstream answered 503",
        }),
      ),
      errors: errorTable(modules, FAILURE_CONDITIONS),
    },
  };
}

/** `text` with each named section's body replaced; a marker missing from the text is an error. */
export function withSections(file, text, sections) {
  let out = text;
  for (const [name, body] of Object.entries(sections)) {
    const start = `<!-- generated: ${name} (npm run docs) -->`;
    const from = out.indexOf(start);
    const to = out.indexOf("<!-- end -->", from);
    if (from < 0 || to < 0) throw new Error(`${file}: no "${start}" … "<!-- end -->" markers`);
    out = `${out.slice(0, from + start.length)}\n${body}\n${out.slice(to)}`;
  }
  return out;
}

/** Every generated file as it should read: file name → text. */
export async function generatedDocs(modules) {
  const docs = {};
  for (const [file, sections] of Object.entries(await generatedSections(modules))) {
    docs[file] = withSections(file, readFileSync(new URL(file, ROOT), "utf8"), sections);
  }
  return docs;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  // The bench's lines and record come from its own build (tsc -p bench, which npm run docs runs first).
  const benchLines = await import(new URL("bench/.out/bench/lines.js", ROOT).href);
  const benchRecord = await import(new URL("bench/.out/bench/record.js", ROOT).href);
  const docs = await generatedDocs({ ...(await loadCode("dist")), benchLines, benchRecord });
  for (const [file, text] of Object.entries(docs)) {
    if (readFileSync(new URL(file, ROOT), "utf8") === text) continue;
    writeFileSync(new URL(file, ROOT), text);
    console.log(`wrote ${file}`);
  }
}
