// What a client's self-given name is checked for before the consent page shows it: imitating a known
// assistant (compared by skeleton: look-alike letters folded with Unicode's confusables), letters of
// different scripts mixed inside one word, and claims of a verification nobody made.
import { removeHidden } from "../tools/hidden.js";
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

/**
 * Words by which a name claims a check nobody made, in English, French, German, Spanish, Portuguese,
 * Italian and Dutch (matched inside words and compounds, after folding case, accents and look-alikes),
 * then in Japanese and Chinese (matched as written); "by <company>" below.
 */
const CLAIM_WORDS = [
  ...["verified", "official", "certified", "trusted", "trustworthy", "authentic", "genuine", "approved"],
  ...["endorsed", "authorized", "authorised"],
  ...["verifie", "officiel", "certifie", "deconfiance", "authentique", "approuve"],
  ...["verifiziert", "offiziell", "zertifiziert", "gepruft", "vertrauenswurdig", "authentisch"],
  ...["verificad", "oficial", "certificad", "confiable", "confiavel", "autentic", "aprobad", "aprovad"],
  ...["verificat", "ufficial", "certificato", "certificata", "affidabile", "approvat", "geverifieerd"],
];
const CLAIM_WORDS_CJK = ["公式", "公認", "認証", "認定", "検証済", "確認済", "正規", "官方", "认证", "認證"];
const CLAIM_WORDS_CJK_MORE = ["验证", "驗證", "可信", "正版", "인증", "공식"];
const CLAIM_COMPANIES = ["anthropic", "openai", "google", "microsoft", "github", "apple", "meta"];
/** Check marks and what passes for one: √ ∛ ∜, ☑ ✅ ✓ ✔ (with or without the emoji selector), 🗸 🗹, Aegean 𐄂, 🮱. */
const CHECK_MARKS = /[\u221A-\u221C\u2611\u2705\u2713\u2714\u{1F5F8}\u{1F5F9}\u{10102}\u{1FBB1}]/u;

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

const words = (text: string) =>
  skeleton(text)
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

/** Same length, at most one letter different: a look-alike letter the tables do not know. */
function oneLetterOff(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let differences = 0;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i] && ++differences > 1) return false;
  return true;
}

/**
 * Whether `wanted` (one word, its skeleton) is a run of the name's words; when six letters or more, also
 * inside the name, or a run of its words one letter off.
 */
function names(nameWords: readonly string[], wanted: string): boolean {
  const long = wanted.length >= 6;
  if (long && nameWords.join("").includes(wanted)) return true;
  for (let start = 0; start < nameWords.length; start++) {
    let run = "";
    for (let end = start; end < nameWords.length && run.length < wanted.length; end++) {
      run += nameWords[end];
      if (run === wanted || (long && oneLetterOff(run, wanted))) return true;
    }
  }
  return false;
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

/** Whether a name claims a verification: a claim word in any of its languages, "by <company>", a check mark. */
function claimsVerification(name: string, nameWords: readonly string[]): boolean {
  const letters = nameWords.join("");
  const written = removeHidden(name, { removed: 0 }).normalize("NFKC");
  return (
    CHECK_MARKS.test(written) ||
    CLAIM_WORDS.some((word) => letters.includes(skeleton(word))) ||
    [...CLAIM_WORDS_CJK, ...CLAIM_WORDS_CJK_MORE].some((word) => written.includes(word)) ||
    CLAIM_COMPANIES.some((company) => names(nameWords, skeleton(`by${company}`)))
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
  const like = ASSISTANTS.find((a) => a.words.some((word) => names(nameWords, skeleton(word))));
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
