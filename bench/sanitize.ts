// Sanitizing is synchronous: a long hostile string stalls every user of a hosted server while it runs.
// The time of the build under test's sanitizeText on mixed hostile Markdown (the sandbox's attack corpus
// and the Markdown people write, over and over) of 10 KB and 100 KB, and on 100 KB of one subdivision
// flag over and over (a tag sequence: every character but one of it is hidden), in this process. Reported by
// `npm run bench`, judged against SANITIZE_100KB_LINE_MS; `node bench/.out/bench/sanitize.js [dist]` alone.
import { pathToFileURL } from "node:url";
import { ATTACKS, MARKDOWN } from "../src/sandbox/hostile-text.js";
import { DIST } from "./processes.js";

export interface SanitizeFigures {
  /** Median milliseconds of one sanitizeText call, by the string's length in characters. */
  medianMs: Record<string, number>;
}

/** `chars` characters of mixed hostile Markdown. */
export function hostileMarkdown(chars: number): string {
  const pieces = [...Object.values(ATTACKS), ...Object.values(MARKDOWN)];
  let out = "";
  for (let i = 0; out.length < chars; i++) out += `${pieces[i % pieces.length]}\n`;
  return out.slice(0, chars);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** The England flag: a black flag, five tag characters and a cancel tag. */
const FLAG = "\u{1F3F4}\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}";

/** The hostile inputs by name: mixed Markdown, and subdivision flags. */
const INPUTS: Record<string, () => string> = {
  "10 KB": () => hostileMarkdown(10_000),
  "100 KB": () => hostileMarkdown(100_000),
  "100 KB flags": () => FLAG.repeat(Math.floor(100_000 / FLAG.length)),
};

/** The median time of sanitizeText on each input, each string new to the call (no cache helps). */
export async function measureSanitize(dist = DIST, runs = 15): Promise<SanitizeFigures> {
  const { sanitizeText } = (await import(pathToFileURL(`${dist}tools/sanitize.js`).href)) as {
    sanitizeText: (text: string) => { text: string };
  };
  const medianMs: Record<string, number> = {};
  for (const [name, input] of Object.entries(INPUTS)) {
    const base = input();
    sanitizeText(`warm ${base}`);
    const times: number[] = [];
    for (let run = 0; run < runs; run++) {
      const text = `${run} ${base}`;
      const start = process.hrtime.bigint();
      sanitizeText(text);
      times.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    medianMs[name] = median(times);
  }
  return { medianMs };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const dist = process.argv[2] ? `${process.argv[2].replace(/\/$/, "")}/` : DIST;
  const { medianMs } = await measureSanitize(dist);
  for (const [size, ms] of Object.entries(medianMs)) process.stdout.write(`${size}: ${ms.toFixed(2)} ms\n`);
}
