// Who asks, as the consent page can honestly say it: the host that was checked (a metadata document
// client's client_id URL, or a registered client's redirect URI), the name only as the client's own
// claim, and warnings about names that imitate a known assistant, mix scripts, or claim a verification.
import { removeHidden } from "../tools/hidden.js";
import { returnPlaceOf } from "./redirects.js";

export type NameFlag =
  | { kind: "lookalike"; assistant: string }
  | { kind: "mixed_scripts"; scripts: string[] }
  | { kind: "claims_verification" };

export interface ClientIdentity {
  /** Where the host comes from: the client_id URL the document was fetched from, or the redirect URI. */
  source: "metadata_document" | "redirect_uri";
  host: string;
  /** The name the client gives itself: its own claim, never checked. */
  claimedName?: string;
  flags: NameFlag[];
}

/** Assistants people know by name, the words that name them, and the hosts that are their own. */
const ASSISTANTS: readonly { name: string; words: readonly string[]; hosts: readonly string[] }[] = [
  { name: "Claude", words: ["claude", "anthropic"], hosts: ["claude.ai", "claude.com", "anthropic.com"] },
  { name: "ChatGPT", words: ["chatgpt", "openai", "codex"], hosts: ["chatgpt.com", "openai.com"] },
  { name: "Cursor", words: ["cursor", "anysphere"], hosts: ["cursor.com", "cursor.sh"] },
  {
    name: "VS Code",
    words: ["vscode", "visualstudiocode", "visualstudio"],
    hosts: ["visualstudio.com", "vscode.dev"],
  },
  { name: "GitHub Copilot", words: ["copilot", "githubcopilot"], hosts: ["github.com"] },
  { name: "Gemini", words: ["gemini"], hosts: ["google.com"] },
  { name: "Windsurf", words: ["windsurf", "codeium"], hosts: ["windsurf.com", "codeium.com"] },
  { name: "Perplexity", words: ["perplexity"], hosts: ["perplexity.ai"] },
  { name: "Le Chat", words: ["mistral", "lechat"], hosts: ["mistral.ai"] },
  { name: "Grok", words: ["grok"], hosts: ["x.ai", "grok.com"] },
  { name: "Cline", words: ["cline"], hosts: ["cline.bot"] },
];

/** Words by which a name claims a check nobody made; "by <company>" below. */
const CLAIM_WORDS = ["verified", "official", "certified", "authentic", "genuine", "trusted", "approved"];
const CLAIM_COMPANIES = ["anthropic", "openai", "google", "microsoft", "github", "apple", "meta"];
const CHECK_MARKS = /[\u2713\u2714\u2611\u2705\u{1F5F8}]/u;

// Letters of other scripts drawn like Latin ones: capitals first (before case folding, since Greek Η
// lowercases to η, drawn like n), then small letters; after these, i, 1 and | fold into l, and 0 into o.
const CAPITALS: Record<string, string> = {
  // Cyrillic
  А: "A",
  В: "B",
  С: "C",
  Е: "E",
  Н: "H",
  І: "I",
  Ј: "J",
  К: "K",
  М: "M",
  О: "O",
  Р: "P",
  Ѕ: "S",
  Т: "T",
  Х: "X",
  У: "Y",
  Ү: "Y",
  Ԛ: "Q",
  Ԝ: "W",
  Ӏ: "I",
  // Greek
  Α: "A",
  Β: "B",
  Ε: "E",
  Ζ: "Z",
  Η: "H",
  Ι: "I",
  Κ: "K",
  Μ: "M",
  Ν: "N",
  Ο: "O",
  Ρ: "P",
  Τ: "T",
  Υ: "Y",
  Χ: "X",
  // Cherokee
  Ꭺ: "A",
  Ᏼ: "B",
  Ꮯ: "C",
  Ꭼ: "E",
  Ꮋ: "H",
  Ꭻ: "J",
  Ꮶ: "K",
  Ꮇ: "M",
  Ꮪ: "S",
  Ꭲ: "T",
  Ꮃ: "W",
  Ꮓ: "Z",
  Ꮮ: "L",
  Ꭰ: "D",
  Ꮢ: "R",
  Ꮩ: "V",
};
const SMALL: Record<string, string> = {
  // Cyrillic
  а: "a",
  с: "c",
  е: "e",
  һ: "h",
  і: "i",
  ј: "j",
  ԛ: "q",
  о: "o",
  р: "p",
  ѕ: "s",
  х: "x",
  у: "y",
  ԝ: "w",
  ӏ: "l",
  ԁ: "d",
  ɡ: "g",
  // Greek
  α: "a",
  ο: "o",
  ρ: "p",
  ν: "v",
  υ: "u",
  ι: "i",
  κ: "k",
  χ: "x",
  ϲ: "c",
  // Armenian
  օ: "o",
  ս: "u",
  հ: "h",
  ց: "g",
  ո: "n",
  // Latin letters drawn like others
  ı: "i",
  ɩ: "i",
  ɑ: "a",
  ʟ: "l",
};

/**
 * A name reduced to how it looks: compatibility forms folded (NFKC: fullwidth, mathematical letters),
 * hidden characters dropped, look-alike letters of other scripts mapped to Latin, case folded, accents
 * dropped, and the shapes that pass for one another (i l 1 |, 0 o, rn m, vv w) made one. For comparing
 * only, never for showing.
 */
export function skeleton(text: string): string {
  const compatible = removeHidden(text, { removed: 0 }).normalize("NFKC");
  const capitals = [...compatible].map((c) => CAPITALS[c] ?? c).join("");
  const small = [...capitals.toLowerCase()].map((c) => SMALL[c] ?? c).join("");
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

/** Whether `wanted` (one word, its skeleton) is a run of the name's words, or, when long, inside it. */
function names(nameWords: readonly string[], wanted: string): boolean {
  const joined = nameWords.join("");
  if (wanted.length >= 6 && joined.includes(wanted)) return true;
  for (let start = 0; start < nameWords.length; start++) {
    let run = "";
    for (let end = start; end < nameWords.length && run.length < wanted.length; end++) {
      run += nameWords[end];
      if (run === wanted) return true;
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
].map((script) => ({ script, pattern: new RegExp(`^\\p{Script=${script}}$`, "u") }));
/** Scripts written together (Unicode's "highly restrictive" sets): not a mix worth a warning. */
const WRITTEN_TOGETHER = [
  new Set(["Latin", "Han", "Hiragana", "Katakana"]),
  new Set(["Latin", "Han", "Bopomofo"]),
  new Set(["Latin", "Han", "Hangul"]),
];

/** The scripts of a name's letters, in the order met. */
export function scriptsOf(text: string): string[] {
  const found = new Set<string>();
  for (const char of removeHidden(text, { removed: 0 }).normalize("NFKC")) {
    if (!/\p{L}/u.test(char)) continue;
    found.add(SCRIPTS.find((s) => s.pattern.test(char))?.script ?? "other");
  }
  return [...found];
}

const hostIsOrUnder = (host: string, domain: string) => host === domain || host.endsWith(`.${domain}`);

/**
 * The warnings a name earns. `verifiedHost` is a host the client is known to answer at (its metadata
 * document's, or its https redirect URI's): a known assistant's name there is no imitation.
 */
export function nameFlags(name: string, verifiedHost?: string): NameFlag[] {
  const flags: NameFlag[] = [];
  const nameWords = words(name);
  const host = verifiedHost?.replace(/:\d+$/, "").toLowerCase();
  const like = ASSISTANTS.find(
    (a) =>
      a.words.some((word) => names(nameWords, skeleton(word))) &&
      !(host && a.hosts.some((own) => hostIsOrUnder(host, own))),
  );
  if (like) flags.push({ kind: "lookalike", assistant: like.name });
  const scripts = scriptsOf(name);
  if (scripts.length > 1 && !WRITTEN_TOGETHER.some((set) => scripts.every((s) => set.has(s)))) {
    flags.push({ kind: "mixed_scripts", scripts });
  }
  const claims =
    CHECK_MARKS.test(name) ||
    CLAIM_WORDS.some((word) => nameWords.includes(skeleton(word))) ||
    CLAIM_COMPANIES.some((company) => names(nameWords, skeleton(`by${company}`)));
  if (claims) flags.push({ kind: "claims_verification" });
  return flags;
}

/** What the page leads with for a client: the host it could check, then the name as a claim. */
export function identityOf(client: { clientId: string; name?: string }, redirectUri: string): ClientIdentity {
  const fromDocument = client.clientId.startsWith("https://");
  const host = fromDocument ? new URL(client.clientId).host : returnPlaceOf(redirectUri);
  const name = client.name === undefined ? undefined : removeHidden(client.name, { removed: 0 }).trim();
  return {
    source: fromDocument ? "metadata_document" : "redirect_uri",
    host,
    ...(name ? { claimedName: name } : {}),
    // A code only ever goes to the redirect URI: an https one on an assistant's own host is that assistant's.
    flags: name ? nameFlags(name, fromDocument || redirectUri.startsWith("https://") ? host : undefined) : [],
  };
}
