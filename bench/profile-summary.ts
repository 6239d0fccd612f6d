// Summarises the CPU profiles `npm run bench -- --profile` leaves in bench/results/profiles/<path>/:
// self time per area (package, node internals, our code, GC) and the hottest functions.
// Usage: node bench/.out/bench/profile-summary.js [path ...]   (default: every path profiled)
import { readdirSync, readFileSync } from "node:fs";
import { ROOT } from "./processes.js";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const PROFILES = `${ROOT}bench/results/profiles/`;
const TOP = 25;

function areaOf({ functionName, url }: ProfileNode["callFrame"]): string {
  if (!url) return functionName.startsWith("(") ? functionName : "(native)";
  const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (inPackage) return inPackage[1]!;
  if (url.startsWith("node:")) return "node internals";
  if (url.includes("/dist/")) return "agent-workspace-mcp";
  return url;
}

function frameName({ functionName, url, lineNumber }: ProfileNode["callFrame"]): string {
  const file = url.replace(/^.*node_modules\//, "").replace(/^file:\/\/.*\/dist\//, "dist/");
  return `${functionName || "(anonymous)"} ${file}:${lineNumber + 1}`;
}

function addTo(totals: Map<string, number>, key: string, micros: number): void {
  totals.set(key, (totals.get(key) ?? 0) + micros);
}

function summarise(path: string): string[] {
  const byArea = new Map<string, number>();
  const byFrame = new Map<string, number>();
  let total = 0;
  for (const file of readdirSync(`${PROFILES}${path}`).filter((name) => name.endsWith(".cpuprofile"))) {
    const profile = JSON.parse(readFileSync(`${PROFILES}${path}/${file}`, "utf8")) as CpuProfile;
    const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
    profile.samples.forEach((id, index) => {
      const frame = nodes.get(id)!.callFrame;
      if (frame.functionName === "(idle)") return;
      const micros = profile.timeDeltas[index] ?? 0;
      total += micros;
      addTo(byArea, areaOf(frame), micros);
      addTo(byFrame, frameName(frame), micros);
    });
  }
  const share = (micros: number) => `${((100 * micros) / total).toFixed(1)} %`;
  const top = (totals: Map<string, number>, count: number) =>
    [...totals].sort((a, b) => b[1] - a[1]).slice(0, count);
  return [
    `## ${path}: ${(total / 1000).toFixed(0)} ms busy`,
    "",
    "| area | self time |",
    "|---|---:|",
    ...top(byArea, 15).map(([area, micros]) => `| ${area} | ${share(micros)} |`),
    "",
    "| function | self time |",
    "|---|---:|",
    ...top(byFrame, TOP).map(([frame, micros]) => `| ${frame} | ${share(micros)} |`),
    "",
  ];
}

const paths = process.argv.slice(2);
const chosen = paths.length ? paths : readdirSync(PROFILES);
process.stdout.write(chosen.flatMap(summarise).join("\n"));
