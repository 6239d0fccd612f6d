// What a client's self-given name is checked for before the consent page shows it: imitating a known
// assistant (compared by skeleton: look-alike letters folded with Unicode's confusables), letters of
// different scripts mixed inside one word, and claims of a verification nobody made.
import { removeHidden } from "../tools/hidden.js";
import { CLAIM_WORDS, CLAIM_WORDS_WRITTEN } from "./claim-words.js";
import { CONFUSABLE_LETTERS } from "./confusable-letters.js";

export type NameFlag =
  | { kind: "lookalike"; assistant: string }
  | { kind: "mixed_scripts"; scripts: string[] }
  | { kind: "claims_verification" };

/** Assistants people know by name, the words that name them, and the hosts that are their own. */
export const ASSISTANTS: readonly { name: string; words: readonly string[]; hosts: readonly string[] }[] = [
  { name: "Claude", words: ["claude", "anthropic"], hosts: ["claude.ai", "claude.com", "anthropic.com"] },
  { name: "ChatGPT", words: ["chatgpt", "openai", "codex"], hosts: ["chatgpt.com", "openai.com"] },
  { name: "Cursor", words: ["cursor", "anysphere"], hosts: ["cursor.com", "cursor.sh"] },
  {
    name: "VS Code",
    words: ["vscode", "visualstudiocode", "visualstudio"],
    hosts: ["vscode.dev", "visualstudio.com"],
  },
  { name: "GitHub Copilot", words: ["copilot", "githubcopilot"], hosts: ["github.com"] },
  { name: "Gemini", words: ["gemini"], hosts: ["gemini.google.com"] },
  { name: "Windsurf", words: ["windsurf", "codeium"], hosts: ["windsurf.com", "codeium.com"] },
  { name: "Perplexity", words: ["perplexity"], hosts: ["perplexity.ai"] },
  { name: "Le Chat", words: ["mistral", "lechat"], hosts: ["mistral.ai"] },
  { name: "Grok", words: ["grok"], hosts: ["x.ai", "grok.com"] },
  { name: "Cline", words: ["cline"], hosts: ["cline.bot"] },
];

/** Claim words also caught one edit off ("Verfied", "Offical"): those whose neighbours are no ordinary words. */
const CLAIM_WORDS_MISSPELT = ["verified", "official", "certified", "accredited"];
export const CLAIM_COMPANIES = ["anthropic", "openai", "google", "microsoft", "github", "apple", "meta"];
/**
 * Marks that say "checked": √ ∛ ∜, ☑ ✅ ✓ ✔ (with or without the emoji selector), 🗸 🗹, Aegean 𐄂, 🮱,
 * APL's ⍻, 🆗; and the padlocks and shield 🔏 🔐 🔒 🛡, which copy a browser's own sign that a site was
 * checked. A cross (☒ ✗) or an arrow claims nothing.
 */
const CHECK_MARKS =
  /[\u221A-\u221C\u237B\u2611\u2705\u2713\u2714\u{1F197}\u{1F50F}\u{1F510}\u{1F512}\u{1F5F8}\u{1F5F9}\u{1F6E1}\u{10102}\u{1FBB1}]/u;
/** The katakana レ standing alone, as Japanese writes a check mark (inside a word it is a syllable). */
const KATAKANA_CHECK = /(?<![\p{L}\u30FC])\u30EC(?![\p{L}\u30FC])/u;

let folds: Map<string, string> | undefined;
/** The generated table (src/oauth/confusable-letters.ts), read into a map when first needed. */
function foldOf(char: string): string | undefined {
  if (!folds) {
    folds = new Map();
    for (const entry of CONFUSABLE_LETTERS.split("\n")) {
      const [char, ...rest] = [...entry];
      if (char) folds.set(char, rest.join(""));
    }
  }
  return folds.get(char);
}

/**
 * A name reduced to how it looks (UTS #39's skeleton, narrowed to Latin): compatibility forms folded
 * (NFKC), hidden characters dropped, each letter that passes for Latin letters or digits replaced by
 * them, case folded, accents dropped, and the shapes that pass for one another (i l 1 |, 0 o, rn m, vv w)
 * made one. For comparing only, never for showing.
 */
export function skeleton(text: string): string {
  const compatible = removeHidden(text, { removed: 0 }).normalize("NFKC");
  // Capitals first (Greek Η lowercases to η, drawn like n), then what lowercasing made.
  const folded = [...compatible].map((c) => foldOf(c) ?? c).join("");
  const small = [...folded.toLowerCase()].map((c) => foldOf(c) ?? c).join("");
  return small
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .replace(/[i1|!]/g, "l")
    .replace(/0/g, "o")
    .replace(/rn/g, "m")
    .replace(/vv/g, "w");
}

/**
 * A name's words, each as its skeleton: split where the name breaks (spaces, punctuation), where a
 * small letter meets a capital (CamelCase) and where letters meet digits, so that "CluadeConnector" and
 * "Cluade3" hold the word "cluade".
 */
const words = (text: string) =>
  skeleton(
    removeHidden(text, { removed: 0 })
      .normalize("NFKC")
      .replace(/(\p{Ll})(?=\p{Lu})|(\p{L})(?=\p{Nd})|(\p{Nd})(?=\p{L})/gu, "$1$2$3 "),
  )
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

/**
 * The optimal string alignment distance (Damerau–Levenshtein, each part edited once): letters
 * substituted, dropped, added or two neighbours swapped, counted; anything past `most` is `most + 1`.
 */
export function editDistance(a: string, b: string, most: number): number {
  if (Math.abs(a.length - b.length) > most) return most + 1;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let rowBest = i;
    for (let j = 1; j <= b.length; j++) {
      let best = Math.min(
        (previous[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, (before[j - 2] as number) + 1);
      row.push(best);
      rowBest = Math.min(rowBest, best);
    }
    if (rowBest > most) return most + 1;
    before = previous;
    previous = row;
  }
  return Math.min(previous[b.length] as number, most + 1);
}

/**
 * How many edits (a letter changed, dropped, added, or two swapped) still name an assistant's word of
 * this length: one from six letters ("Claud", "Cluade", "Curosr"), two from ten ("Perplxeity"); none
 * below six, where the neighbours are ordinary words (clone, cling, coder, codes for cline, codex).
 */
const editsAllowed = (length: number) => (length >= 10 ? 2 : length >= 6 ? 1 : 0);

/**
 * Whether `wanted` (one word, its skeleton) is a run of the name's words, or a run a few edits off it
 * (see editsAllowed); when six letters or more, also inside the name.
 */
function names(nameWords: readonly string[], wanted: string, edits = editsAllowed(wanted.length)): boolean {
  if (wanted.length >= 6 && nameWords.join("").includes(wanted)) return true;
  const tried = new Set<string>();
  for (let start = 0; start < nameWords.length; start++) {
    let run = "";
    for (let end = start; end < nameWords.length; end++) {
      run += nameWords[end];
      if (run.length > wanted.length + edits) break;
      if (run === wanted) return true;
      if (edits === 0 || run.length < 5 || run.length < wanted.length - edits || tried.has(run)) continue;
      tried.add(run);
      if (bagDistance(run, wanted) <= edits && editDistance(run, wanted, edits) <= edits) return true;
    }
  }
  return false;
}

/**
 * How many letters one word has more of than the other, counted as multisets: a lower bound of the
 * edit distance that costs one pass, so most runs are ruled out before the table is built.
 */
function bagDistance(a: string, b: string): number {
  const counts = new Map<string, number>();
  for (const c of a) counts.set(c, (counts.get(c) ?? 0) + 1);
  for (const c of b) counts.set(c, (counts.get(c) ?? 0) - 1);
  let more = 0;
  let fewer = 0;
  for (const n of counts.values()) {
    if (n > 0) more += n;
    else fewer -= n;
  }
  return Math.max(more, fewer);
}

/** The scripts a letter can be of, by name; a letter of none of these is "other". */
const SCRIPTS = [
  "Latin",
  "Cyrillic",
  "Greek",
  "Armenian",
  "Georgian",
  "Cherokee",
  "Hebrew",
  "Arabic",
  "Devanagari",
  "Thai",
  "Han",
  "Hiragana",
  "Katakana",
  "Hangul",
  "Bopomofo",
].map((script) => ({ script, pattern: new RegExp(`^\\p{Script_Extensions=${script}}$`, "u") }));
/** Scripts written together (Unicode's "highly restrictive" sets): not a mix worth a warning. */
const WRITTEN_TOGETHER = [
  new Set(["Latin", "Han", "Hiragana", "Katakana"]),
  new Set(["Latin", "Han", "Bopomofo"]),
  new Set(["Latin", "Han", "Hangul"]),
];
/** Scripts that alternate inside one word of Japanese, Chinese or Korean (食べ物, 한국語). */
const EAST_ASIAN = new Set(["Han", "Hiragana", "Katakana", "Hangul", "Bopomofo"]);

/** Letters of no one script (the kana length mark ー, modifier letters): of whichever word holds them. */
const SHARED = /^[\p{Script=Common}\p{Script=Inherited}]$/u;
/** A letter's script, by its Script_Extensions (ー is Hiragana's and Katakana's); undefined when shared. */
const scriptOf = (char: string): string | undefined =>
  SCRIPTS.find((s) => s.pattern.test(char))?.script ?? (SHARED.test(char) ? undefined : "other");

/** The scripts of a name's letters, in the order met. */
export function scriptsOf(text: string): string[] {
  const found = new Set<string>();
  for (const char of removeHidden(text, { removed: 0 }).normalize("NFKC")) {
    const script = /\p{L}/u.test(char) ? scriptOf(char) : undefined;
    if (script) found.add(script);
  }
  return [...found];
}

/**
 * The scripts of the first word whose letters of one script are broken by another's ("Clau" テ "de"):
 * beside each other, words of different scripts are ordinary ("Notes ノート", "Claudeアプリ").
 */
function brokenWord(text: string): string[] | undefined {
  for (const word of removeHidden(text, { removed: 0 })
    .normalize("NFKC")
    .split(/[^\p{L}\p{M}]+/u)) {
    const runs: string[] = [];
    for (const char of word) {
      const script = /\p{L}/u.test(char) ? scriptOf(char) : undefined;
      if (!script) continue;
      const group = EAST_ASIAN.has(script) ? "East Asian" : script;
      if (runs.at(-1) !== group) runs.push(group);
    }
    if (new Set(runs).size < runs.length) return scriptsOf(word);
  }
  return undefined;
}

const ownSkeletons = new Map<string, string>();
/** The skeleton of one of this file's own words (a fixed set), worked out once. */
function ownSkeleton(word: string): string {
  let found = ownSkeletons.get(word);
  if (found === undefined) {
    found = skeleton(word);
    ownSkeletons.set(word, found);
  }
  return found;
}

/** Whether a name claims a verification: a claim word in any of its languages, "by <company>", a check mark. */
function claimsVerification(name: string, nameWords: readonly string[]): boolean {
  const letters = nameWords.join("");
  const written = removeHidden(name, { removed: 0 }).normalize("NFKC");
  const small = written.toLowerCase();
  return (
    CHECK_MARKS.test(written) ||
    KATAKANA_CHECK.test(written) ||
    CLAIM_WORDS.some((word) => {
      // A short word only as a word of its own: "resmi" is Turkish, "Jahresmiete" German.
      const wanted = ownSkeleton(word);
      return wanted.length > 5 ? letters.includes(wanted) : names(nameWords, wanted, 0);
    }) ||
    CLAIM_WORDS_MISSPELT.some((word) => names(nameWords, ownSkeleton(word), 1)) ||
    CLAIM_WORDS_WRITTEN.some((word) => small.includes(word) || letters.includes(ownSkeleton(word))) ||
    CLAIM_COMPANIES.some((company) => names(nameWords, ownSkeleton(`by${company}`), 0))
  );
}

const withoutPort = (host: string) => host.replace(/:\d+$/, "").replace(/\.$/, "").toLowerCase();

/**
 * The assistant whose own host `host` is, exactly (no subdomain: a subdomain may serve others' content,
 * as script.google.com serves anyone's Apps Script).
 */
export function assistantAt(host: string): string | undefined {
  const bare = withoutPort(host);
  return ASSISTANTS.find((a) => a.hosts.includes(bare))?.name;
}

/**
 * The warnings a name earns. `documentHost` is the host a metadata document was fetched from: a known
 * assistant's name in a document published on that assistant's own host is no imitation. A redirect
 * URI's host never counts: third parties receive codes on assistants' hosts too (a custom GPT's callback
 * on chatgpt.com, an Apps Script on script.google.com, vscode.dev/redirect).
 */
export function nameFlags(name: string, documentHost?: string): NameFlag[] {
  const flags: NameFlag[] = [];
  const nameWords = words(name);
  const own = documentHost === undefined ? undefined : assistantAt(documentHost);
  const like = ASSISTANTS.find((a) => a.words.some((word) => names(nameWords, ownSkeleton(word))));
  if (like && like.name !== own) flags.push({ kind: "lookalike", assistant: like.name });
  const scripts = scriptsOf(name);
  const broken = brokenWord(name);
  if (broken) flags.push({ kind: "mixed_scripts", scripts: broken });
  else if (scripts.length > 1 && !WRITTEN_TOGETHER.some((set) => scripts.every((s) => set.has(s)))) {
    flags.push({ kind: "mixed_scripts", scripts });
  }
  if (claimsVerification(name, nameWords)) flags.push({ kind: "claims_verification" });
  return flags;
}
