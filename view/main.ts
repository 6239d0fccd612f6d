// The report view: an MCP App (the extension's App class) that draws the answer of the tool it is
// attached to as a chart with a table beside it, and calls that tool again, through the host, when the
// reader changes the range, interval, dimension, metrics or page.
import {
  App,
  applyDocumentTheme,
  applyHostFonts,
  applyHostStyleVariables,
} from "@modelcontextprotocol/ext-apps";
import { BarChart, Interpolation, LineChart } from "chartist";
import { type Controls, controlsFor, dayOf } from "./controls.js";
import {
  type ChartPlan,
  kindsOf,
  markCount,
  nameOf,
  planChart,
  shortLabel,
  type Table,
  tableOf,
} from "./model.js";
import { shownText } from "./shown.js";

type Args = Record<string, unknown>;
interface ToolResult {
  isError?: boolean;
  content?: { type: string; text?: string }[];
  structuredContent?: unknown;
}

const app = new App({ name: "agent-workspace-mcp report view", version: "1.0.0" }, {});
const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

const state: {
  tool?: { name: string; title?: string; inputSchema?: unknown };
  args: Args;
  body?: Record<string, unknown>;
  table?: Table;
  measure?: string;
  stacked: boolean;
  renders: number;
} = { args: {}, stacked: false, renders: 0 };

/** The answer's body: structuredContent, else the JSON text the tool also returns. */
function bodyOf(result: ToolResult): Record<string, unknown> | undefined {
  if (result.structuredContent && typeof result.structuredContent === "object") {
    return result.structuredContent as Record<string, unknown>;
  }
  const text = result.content?.find((block) => block.type === "text")?.text;
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

function say(message: string, isError = false): void {
  const status = $("status");
  status.textContent = message;
  status.classList.toggle("error", isError);
}

function cellText(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (Array.isArray(value))
    return value.length === 0 ? "" : `${value.length} item${value.length > 1 ? "s" : ""}`;
  if (typeof value === "object") return JSON.stringify(value);
  if (typeof value === "number") return value.toLocaleString("en-US", { maximumFractionDigits: 4 });
  return String(value);
}

/** The table's columns: what the chart draws first (label, split, measure), identifiers last. */
function tableColumns(table: Table, plan: ChartPlan): number[] {
  const first = [plan.x, plan.split, plan.measure, ...plan.measures].filter((name) => name !== undefined);
  const rank = (name: string, index: number) => {
    const at = first.indexOf(name);
    if (at >= 0) return at;
    const identifiers = table.rows.every((row) => typeof row[index] === "string" && UUID.test(row[index]));
    return identifiers ? 2000 + index : 1000 + index;
  };
  return table.columns
    .map((name, index) => ({ index, rank: rank(name, index) }))
    .sort((a, b) => a.rank - b.rank)
    .map(({ index }) => index);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function drawTable(table: Table, plan: ChartPlan): void {
  const kinds = kindsOf(table);
  const order = tableColumns(table, plan);
  const element = $<HTMLTableElement>("table");
  element.replaceChildren();
  const caption = element.createCaption();
  caption.textContent = `${table.rows.length} row${table.rows.length === 1 ? "" : "s"}`;
  const head = element.createTHead().insertRow();
  for (const name of order.map((index) => table.columns[index]!)) {
    const th = document.createElement("th");
    th.scope = "col";
    th.textContent = nameOf(name);
    th.title = name;
    th.dataset.kind = kinds.get(name);
    head.append(th);
  }
  // The columns that label the chart's marks show their text whole (wrapped); others may be cut, with the whole on hover.
  const labelling = new Set([plan.x, plan.split].filter((name) => name !== undefined));
  const body = element.createTBody();
  for (const row of table.rows) {
    const tr = body.insertRow();
    for (const index of order) {
      const td = tr.insertCell();
      const text = cellText(row[index]);
      td.textContent = text;
      const name = table.columns[index]!;
      if (kinds.get(name) === "number") td.className = "num";
      else if (labelling.has(name)) td.className = "label";
      else if (text.length > 20) td.title = text;
    }
  }
}

/** Every nth label, so that long time axes stay readable. */
const thin = (count: number, room: number) => {
  const step = Math.max(1, Math.ceil(count / room));
  return (label: unknown, index: number) => (index % step === 0 ? String(label) : null);
};

function drawLegend(plan: ChartPlan): void {
  const legend = $("legend");
  legend.replaceChildren();
  plan.series.forEach((series, index) => {
    const item = document.createElement("li");
    item.className = `swatch-${index % 8}`;
    // One series named after the measure is that measure; others are values of the split column.
    item.textContent = series.name === plan.measure ? nameOf(series.name) : series.name;
    legend.append(item);
  });
}

/**
 * Some hosts size the frame from the document element's own height rather than from the size-changed
 * notification (and read it once, early): once an answer is drawn, the document element's height is
 * kept equal to the report's, so either way of reading it gives the content's height.
 */
let heightKept = false;
function keepDocumentHeight(): void {
  if (heightKept) return;
  heightKept = true;
  const report = $("report");
  const follow = () => {
    document.documentElement.style.height = `${Math.ceil(report.getBoundingClientRect().height)}px`;
  };
  follow();
  new ResizeObserver(follow).observe(report);
}

function drawChart(plan: ChartPlan): void {
  const figure = $("chart");
  const canvas = $("canvas");
  canvas.replaceChildren();
  figure.dataset.chartKind = plan.kind;
  figure.dataset.marks = String(markCount(plan));
  figure.hidden = plan.kind === "none";
  drawLegend(plan);
  // One count per answer or choice drawn (Chartist also redraws on resize: that is the same drawing).
  state.renders += 1;
  const drawing = String(state.renders);
  const done = () => {
    keepDocumentHeight();
    figure.dataset.drawn = drawing;
  };
  if (plan.kind === "none") {
    done();
    return;
  }
  const measureLabel = nameOf(plan.measure ?? "");
  const x = nameOf(plan.x ?? "").toLowerCase();
  const split = plan.split ? nameOf(plan.split).toLowerCase() : undefined;
  $("chart-title").textContent =
    plan.kind === "lines"
      ? `${measureLabel} over ${x}${split ? `, by ${split}` : ""}`
      : `${measureLabel} by ${x}${split ? ` and ${split}` : ""}`;
  figure.setAttribute(
    "aria-label",
    `${plan.kind.replace("-", " ")} chart of ${$("chart-title").textContent}: ${plan.labels.length} ${x} values, ${plan.series.length} series; the table beside it has the numbers.`,
  );
  const data = {
    labels: plan.labels,
    series: plan.series.map(({ name, values }) => ({ name, data: values })),
  };
  const width = canvas.clientWidth || 600;
  if (plan.kind === "lines") {
    new LineChart(canvas, data, {
      height: 260,
      // Through every point without overshooting it (a spline can dip below zero between two points).
      lineSmooth: Interpolation.monotoneCubic(),
      fullWidth: true,
      chartPadding: { right: 24 },
      axisX: { labelInterpolationFnc: thin(plan.labels.length, Math.floor(width / 90)) },
    }).on("created", done);
    return;
  }
  const horizontal = plan.labels.some((label) => label.length > 12) || plan.labels.length > 12;
  const perLabel = plan.kind === "grouped-bars" ? plan.series.length : 1;
  // Horizontal bars are drawn from the bottom up: reversed, the first row is on top.
  const bars = horizontal
    ? {
        labels: [...data.labels].reverse(),
        series: data.series.map((s) => ({ ...s, data: [...s.data].reverse() })),
      }
    : data;
  // Long labels end in an ellipsis on the axis, within its width; hovering one shows it whole.
  const everyNth = thin(plan.labels.length, Math.floor(width / 70));
  const short = (label: unknown, index: number) => {
    const shown = horizontal ? String(label) : everyNth(label, index);
    return shown === null ? null : shortLabel(shown);
  };
  const chart = new BarChart(canvas, bars, {
    height: horizontal ? Math.max(220, plan.labels.length * (14 + 10 * perLabel) + 40) : 260,
    horizontalBars: horizontal,
    stackBars: plan.kind === "stacked-bars",
    seriesBarDistance: 11,
    axisY: horizontal ? { offset: 150, labelInterpolationFnc: short } : {},
    axisX: horizontal ? {} : { labelInterpolationFnc: short },
    chartPadding: { right: 24 },
  });
  chart.on(
    "draw",
    (event: {
      type: string;
      index: number;
      axis?: { units?: { pos?: string } };
      element: { getNode(): Element };
    }) => {
      const onLabelAxis = horizontal ? event.axis?.units?.pos === "y" : event.axis?.units?.pos === "x";
      if (event.type !== "label" || !onLabelAxis) return;
      const whole = bars.labels[event.index];
      const span = event.element.getNode().querySelector("span");
      if (whole !== undefined && span) span.title = whole;
    },
  );
  chart.on("created", done);
}

function setOptions(
  select: HTMLSelectElement,
  values: string[],
  chosen: string[],
  words: (value: string) => string = (value) => value,
): void {
  select.replaceChildren(
    ...values.map((value) => {
      const option = document.createElement("option");
      option.value = value;
      option.textContent = words(value);
      option.selected = chosen.includes(value);
      return option;
    }),
  );
}

/** The controls the tool's schema allows, filled from the call's arguments and the answer's echo. */
function drawControls(controls: Controls, plan: ChartPlan): void {
  const query = ((state.body?.info as Args | undefined)?.query ?? {}) as Args;
  const show = (id: string, on: boolean) => {
    $(id).hidden = !on;
  };
  show("range", controls.range);
  if (controls.range) {
    $<HTMLInputElement>("start").value = dayOf(state.args.start_date ?? query.start_date);
    $<HTMLInputElement>("end").value = dayOf(state.args.end_date ?? query.end_date);
  }
  show("interval-field", controls.interval !== undefined);
  if (controls.interval) {
    const current = String(state.args.date_aggregation_interval ?? query.date_aggregation_interval ?? "");
    setOptions($("interval"), controls.interval, [current]);
  }
  show("dimension-field", controls.dimension !== undefined);
  show("split-field", controls.dimension?.multiple === true);
  if (controls.dimension) {
    const given = state.args[controls.dimension.argument] ?? query[controls.dimension.argument];
    const chosen = Array.isArray(given) ? given.map(String) : given === undefined ? [] : [String(given)];
    setOptions($("dimension"), controls.dimension.values, [chosen[0] ?? ""]);
    if (controls.dimension.multiple)
      setOptions($("split"), ["", ...controls.dimension.values], [chosen[1] ?? ""]);
    $("dimension-label").textContent = controls.dimension.multiple ? "Dimension" : "Group by";
  }
  // Metrics the tool can add and the rows lack (one already there but not numeric draws nothing).
  const columns = state.table?.columns ?? [];
  const extra = (controls.metrics ?? []).filter((name) => !columns.includes(name));
  show("measure-field", plan.measures.length + extra.length > 0);
  setOptions($("measure"), [...plan.measures, ...extra], [plan.measure ?? ""], nameOf);
  show("stacked-field", plan.kind === "grouped-bars" || plan.kind === "stacked-bars");
  $<HTMLInputElement>("stacked").checked = state.stacked;
  const info = state.body?.info as Args | undefined;
  const total = typeof info?.total_rows === "number" ? info.total_rows : undefined;
  const page = (state.args.pagination ?? {}) as { limit?: number; offset?: number };
  const offset = page.offset ?? 0;
  const shown = state.table?.rows.length ?? 0;
  show("paging", controls.paging && total !== undefined && (offset > 0 || offset + shown < total));
  $("page-text").textContent = total === undefined ? "" : `Rows ${offset + 1}–${offset + shown} of ${total}`;
  $<HTMLButtonElement>("previous").disabled = offset === 0;
  $<HTMLButtonElement>("next").disabled = total === undefined || offset + shown >= total;
}

function render(): void {
  const tool = state.tool;
  $("title").textContent = tool?.title ?? tool?.name ?? "Report";
  const table = state.body ? tableOf(state.body) : undefined;
  state.table = table;
  if (!table) {
    $("chart").hidden = true;
    $("table").replaceChildren();
    say("This answer has no rows to chart.");
    return;
  }
  // A page of tasks lists things, it does not measure them: its counts (view "counts") are the chart.
  const plan: ChartPlan = Array.isArray(state.body?.items)
    ? {
        kind: "none",
        reason: "A page of tasks is a list, not a measure (view counts charts them).",
        measures: [],
        labels: [],
        series: [],
      }
    : planChart(table, { measure: state.measure, stacked: state.stacked });
  drawChart(plan);
  drawTable(table, plan);
  drawControls(controlsFor(tool?.inputSchema, state.args), plan);
  say(plan.kind === "none" ? `Nothing to chart: ${plan.reason} The table shows the rows.` : "");
}

/** Calls the tool again, through the host, with changed arguments; the answer redraws the view. */
async function callAgain(changes: Args): Promise<void> {
  if (!state.tool) {
    say("The host did not say which tool this is, so the view cannot call it.", true);
    return;
  }
  const args: Args = { ...state.args, ...changes };
  for (const [key, value] of Object.entries(changes)) if (value === undefined) delete args[key];
  say("Loading…");
  $("report").setAttribute("aria-busy", "true");
  try {
    const result = (await app.callServerTool({ name: state.tool.name, arguments: args })) as ToolResult;
    if (result.isError) {
      const text = result.content?.find((block) => block.type === "text")?.text ?? "the tool failed";
      say(shownText(text).slice(0, 400), true);
      return;
    }
    state.args = args;
    state.body = bodyOf(result);
    render();
  } catch (error) {
    say(`The host did not complete the call: ${(error as Error).message}`.slice(0, 400), true);
  } finally {
    $("report").removeAttribute("aria-busy");
  }
}

function wireControls(): void {
  // Not a form submission: a host's sandbox may not allow forms.
  const applyRange = () => {
    const start = $<HTMLInputElement>("start").value;
    const end = $<HTMLInputElement>("end").value;
    void callAgain({
      start_date: start || undefined,
      end_date: end || undefined,
      ...(state.args.pagination ? { pagination: { ...(state.args.pagination as Args), offset: 0 } } : {}),
    });
  };
  $("apply").addEventListener("click", applyRange);
  for (const id of ["start", "end"]) {
    $(id).addEventListener("keydown", (event) => {
      if (event.key === "Enter") applyRange();
    });
  }
  $("interval").addEventListener("change", (event) => {
    void callAgain({ date_aggregation_interval: (event.target as HTMLSelectElement).value });
  });
  const dimensionChange = () => {
    const controls = controlsFor(state.tool?.inputSchema, state.args);
    const first = $<HTMLSelectElement>("dimension").value;
    if (controls.dimension?.argument === "group_by") return void callAgain({ group_by: first });
    const split = $<HTMLSelectElement>("split").value;
    void callAgain({ dimensions: split && split !== first ? [first, split] : [first] });
  };
  $("dimension").addEventListener("change", dimensionChange);
  $("split").addEventListener("change", dimensionChange);
  $("measure").addEventListener("change", (event) => {
    const measure = (event.target as HTMLSelectElement).value;
    state.measure = measure;
    const columns = state.table?.columns ?? [];
    if (columns.includes(measure)) return render();
    const metrics = Array.isArray(state.args.metrics) ? state.args.metrics : [];
    void callAgain({ metrics: [...metrics, measure] });
  });
  $("stacked").addEventListener("change", (event) => {
    state.stacked = (event.target as HTMLInputElement).checked;
    render();
  });
  const turnPage = (direction: 1 | -1) => {
    const page = (state.args.pagination ?? {}) as { limit?: number; offset?: number };
    const limit = page.limit ?? Math.max(10, state.table?.rows.length ?? 10);
    void callAgain({ pagination: { limit, offset: Math.max(0, (page.offset ?? 0) + direction * limit) } });
  };
  $("previous").addEventListener("click", () => turnPage(-1));
  $("next").addEventListener("click", () => turnPage(1));
}

function applyHostContext(context: ReturnType<typeof app.getHostContext>): void {
  if (!context) return;
  if (context.theme) applyDocumentTheme(context.theme);
  if (context.styles?.variables) applyHostStyleVariables(context.styles.variables);
  if (context.styles?.css?.fonts) applyHostFonts(context.styles.css.fonts);
  if (context.toolInfo?.tool) state.tool = context.toolInfo.tool as typeof state.tool;
}

// The host context arrives with the handshake, which the first notifications may overtake.
app.ontoolinput = ({ arguments: args }) => {
  applyHostContext(app.getHostContext());
  state.args = { ...(args ?? {}) };
};
app.ontoolresult = (result) => {
  applyHostContext(app.getHostContext());
  if (result.isError) {
    say("The tool answered with an error; see the conversation.", true);
    return;
  }
  state.body = bodyOf(result as ToolResult);
  render();
};
app.onhostcontextchanged = (context) => {
  applyHostContext(context);
};

wireControls();
app.connect().then(
  () => applyHostContext(app.getHostContext()),
  (error: Error) => say(`Could not connect to the host: ${error.message}`, true),
);
