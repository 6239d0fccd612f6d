// The run of record: `npm run bench -- --record` keeps a full run's results in bench/record.json, and
// `npm run docs` writes docs/performance.md's figures of record from it, so the page shows what a run
// measured, with its machine and date, and a test holds the two together.
import { MCP_PATH_LABELS } from "./lines.js";
import { MCP_PATHS, type Results } from "./report.js";

/** Where the run of record is kept, from the repository's root. */
export const RECORD_FILE = "bench/record.json";

const thousands = (value: number) => Math.round(value).toLocaleString("en-US");
const rate = (value: number) => `${thousands(value)}/s`;
const ms = (value: number) => `${value.toPrecision(3)} ms`;
const times = (value: number) => `${value.toFixed(2)}×`;
const micros = (value: number | undefined) => (value === undefined ? "n/a" : `${thousands(value)} µs`);
const hhmm = (iso: string) => iso.slice(11, 16);
const took = (from: string, to: string) => {
  const seconds = Math.round((Date.parse(to) - Date.parse(from)) / 1000);
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
};

/** The figures of record as markdown: the run, the table of paths, and how the lines fared. */
export function recordSection(results: Results): string {
  if (results.quick) throw new Error(`${RECORD_FILE} holds a --quick run; a record is a full run`);
  const { machine, paths, coldStart, memory, sizes } = results;
  const limit = paths.limit.tasks_query!;
  const when = results.startedAt
    ? `${results.date.slice(0, 10)} (${hhmm(results.startedAt)}-${hhmm(results.date)} UTC, ${took(results.startedAt, results.date)})`
    : `${results.date.slice(0, 10)} (ended ${hhmm(results.date)} UTC)`;
  const [loadBefore, loadAfter] = machine.loadAverage;
  const lines = [
    `Full \`npm run bench\` on ${when}: ${machine.nproc} CPUs (${machine.cpu}), Node ${machine.node}, ` +
      `${machine.platform}, load average ${loadBefore.toFixed(1)} at the start and ${loadAfter.toFixed(1)} at the end. ` +
      `The limit's \`tasks_query\` ran at ${rate(limit.throughput[16]!)} (p50 ${ms(limit.p50Ms)}, ` +
      `${micros(limit.cpuMicrosPerCall)} of upstream CPU a call).`,
    "",
    "| path, `tasks_query` | ours, 16 in flight | bare SDK v2 | ours / bare | ours p50 | bare p50 | ours / bare | ours CPU/call | bare CPU/call | bare / the limit |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const path of MCP_PATHS) {
    const call = paths[path].tasks_query;
    const bare = call?.bare;
    if (!call || !bare) {
      lines.push(`| ${MCP_PATH_LABELS[path]} | not served | | | | | | | | |`);
      continue;
    }
    const beside = call.limit ?? limit;
    lines.push(
      `| ${[
        MCP_PATH_LABELS[path],
        rate(call.throughput[16]!),
        rate(bare.throughput[16]!),
        times(call.throughput[16]! / bare.throughput[16]!),
        ms(call.p50Ms),
        ms(bare.p50Ms),
        times(call.p50Ms / bare.p50Ms),
        micros(call.cpuMicrosPerCall),
        micros(bare.cpuMicrosPerCall),
        `1/${(beside.throughput[16]! / bare.throughput[16]!).toFixed(1)}`,
      ].join(" | ")} |`,
    );
  }
  const judged = results.targets.filter((row) => row.pass !== undefined);
  const missed = judged.filter((row) => !row.pass);
  const closest = judged
    .filter((row) => row.pass && row.ofLine !== undefined && row.ofLine >= 0.95)
    .map((row) => `${row.measure} (${Math.round(row.ofLine! * 100)} %)`);
  lines.push(
    "",
    `Cold start ${thousands(coldStart.serverMs)} ms, ${times(coldStart.ratio)} \`node -e 0\`; heap per open 2025 ` +
      `session ${(memory.heapPerSessionBytes / 1024).toFixed(1)} KB. The \`tasks_query\` result is ` +
      `${thousands(sizes.tasksResultBytes)} bytes for the ${thousands(sizes.upstreamBodyBytes)}-byte upstream page. ` +
      `"bare / the limit": the bare server's throughput as a share of the limit's, measured in the same slots.`,
  );
  const verdict =
    missed.length === 0
      ? `Every one of the ${judged.length} lines passes.`
      : `${judged.length - missed.length} of the ${judged.length} lines pass; missed: ${missed.map((row) => `${row.measure}: ${row.figure}, line ${row.target}`).join("; ")}.`;
  const near =
    closest.length === 0
      ? ""
      : ` Within 5 % of their line (the figure's share of what the line allows): ${closest.join("; ")}.`;
  lines.push("", verdict + near);
  return lines.join("\n");
}
