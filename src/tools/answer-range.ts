// What an analytics answer covers, stated in its concise form: the range the API applied (its
// `info.query` dates where it returns them, else the spec's defaults for what was asked), and for an
// empty page, the filters and range that produced it, so "nothing there" reads apart from "asked wrongly".

type Row = Record<string, unknown>;

const isObject = (value: unknown): value is Row =>
  value !== null && typeof value === "object" && !Array.isArray(value);

const text = (value: unknown) => (typeof value === "string" && value ? value : undefined);

/** The spec: a date-only end (no `T`) is extended to the end of that day. */
const endText = (end: string) => (end.includes("T") ? end : `${end} (to the end of that day)`);

export interface StatedRange {
  start_date: string;
  end_date: string;
  comparison_start_date?: string;
  comparison_end_date?: string;
  /** Where the dates come from. */
  source: string;
}

const EARLIEST = "the earliest available date";

/** The range of an analytics answer: as `info.query` gives it, else from the request and the spec's defaults. */
export function statedRange(body: Row, args: Row): StatedRange {
  const query = isObject(body.info) && isObject(body.info.query) ? body.info.query : undefined;
  if (query && ("start_date" in query || "end_date" in query)) {
    const comparison =
      text(query.comparison_start_date) && text(query.comparison_end_date)
        ? {
            comparison_start_date: text(query.comparison_start_date) as string,
            comparison_end_date: text(query.comparison_end_date) as string,
          }
        : {};
    return {
      start_date: text(query.start_date) ?? `${EARLIEST} (all time)`,
      end_date: text(query.end_date) ?? "today",
      ...comparison,
      source: "info.query (as the API applied it)",
    };
  }
  const start = text(args.start_date) ?? text(args.current_from);
  const end = text(args.end_date) ?? text(args.current_to);
  const metrics = Array.isArray(args.metrics) && args.metrics.length > 0;
  const cStart = text(args.comparison_start_date) ?? text(args.previous_from);
  const cEnd = text(args.comparison_end_date) ?? text(args.previous_to);
  const comparison =
    cStart && cEnd ? { comparison_start_date: cStart, comparison_end_date: endText(cEnd) } : {};
  const source = "the request, and the API's documented defaults for what it leaves out";
  if (!start && !end && metrics) {
    const latest = "the latest run's date range (the default when metrics come without dates)";
    return { start_date: latest, end_date: latest, ...comparison, source };
  }
  return {
    start_date:
      start ?? (metrics ? "the latest run's start date (default with metrics)" : `${EARLIEST} (default)`),
    end_date: end ? endText(end) : "today (default)",
    ...comparison,
    source,
  };
}

/** What an empty page says: the filters and range asked, and whether rows exist before this offset. */
export function emptyPage(body: Row, args: Row, range: StatedRange): Row {
  const query = isObject(body.info) && isObject(body.info.query) ? body.info.query : undefined;
  const filters = query && "filters" in query ? query.filters : (args.filters ?? {});
  const total = isObject(body.info) ? body.info.total_rows : undefined;
  const offset = isObject(args.pagination) ? Number(args.pagination.offset ?? 0) : 0;
  const span = `${range.start_date} to ${range.end_date}`;
  const note =
    typeof total === "number" && total > 0
      ? `This page is empty but ${total} rows match: offset ${offset} is past them; lower pagination.offset.`
      : `Nothing matches these filters over ${span}: widen the range or loosen the filters to see whether data exists.`;
  return { filters, range: span, note };
}
