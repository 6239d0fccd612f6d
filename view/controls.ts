// Which arguments the view can change, read from the tool's own input schema (the host passes the
// tool in its context): a date range, the aggregation interval, the dimensions or grouping, metrics,
// and the page. Only what the schema has is offered.

type Schema = Record<string, unknown>;
type Args = Record<string, unknown>;

const isObject = (value: unknown): value is Schema =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/** The values a schema names: its enum, else those its description lists after "seen:" or "known:". */
export function namedValues(schema: unknown): string[] {
  if (!isObject(schema)) return [];
  const item = isObject(schema.items) ? schema.items : schema;
  if (Array.isArray(item.enum)) return item.enum.map(String);
  const described = `${item.description ?? ""}`.match(/(?:seen|known): ([^.;]+)/i)?.[1];
  if (!described || /not documented|a metric|a dimension/.test(described)) return [];
  return described
    .split(/,\s*/)
    .map((word) => word.trim())
    .filter((word) => /^[A-Za-z_][\w-]*$/.test(word));
}

export interface Controls {
  range: boolean;
  interval?: string[];
  /** The argument that picks the rows' grouping, and its values. */
  dimension?: { argument: "dimensions" | "group_by"; values: string[]; multiple: boolean };
  /** Metrics the tool can add to each row (an array argument `metrics`). */
  metrics?: string[];
  paging: boolean;
}

/** What the tool's input schema lets the view change. */
export function controlsFor(inputSchema: unknown, args: Args): Controls {
  const properties = isObject(inputSchema) && isObject(inputSchema.properties) ? inputSchema.properties : {};
  const has = (name: string) => Object.hasOwn(properties, name);
  const controls: Controls = { range: has("start_date") && has("end_date"), paging: has("pagination") };
  if (has("date_aggregation_interval")) {
    const seen = namedValues(properties.date_aggregation_interval);
    controls.interval = [...new Set(["day", "week", "month", ...seen])];
  }
  if (has("dimensions")) {
    const given = Array.isArray(args.dimensions) ? args.dimensions.map(String) : [];
    const values = [...new Set([...namedValues(properties.dimensions), ...given])];
    if (controls.interval && !values.includes("date")) values.push("date");
    controls.dimension = { argument: "dimensions", values, multiple: true };
  } else if (has("group_by") && args.view === "counts") {
    controls.dimension = { argument: "group_by", values: namedValues(properties.group_by), multiple: false };
  }
  if (has("metrics")) {
    const metrics = namedValues(properties.metrics);
    if (metrics.length > 0) controls.metrics = metrics;
  }
  return controls;
}

/** The date part of an ISO date or date-time, for a date input. */
export const dayOf = (value: unknown): string =>
  typeof value === "string" && /^\d{4}-\d{2}-\d{2}/.test(value) ? value.slice(0, 10) : "";
