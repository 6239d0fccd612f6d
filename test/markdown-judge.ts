// What a person would not see of a text rendered as Markdown, decided by the renderers hosts use:
// marked; markdown-it with `html` and `linkify` each on and off; remark-parse + remark-gfm +
// remark-rehype as react-markdown runs them, with and without raw HTML (rehype-raw); commonmark.js.
// Each one's HTML is read with parse5 and judged: elements beyond text formatting, attributes,
// comments, links whose target is not the text they show, fence info strings, characters that
// render as nothing, and text of the source that does not show at all.
import { HtmlRenderer, type Node, Parser } from "commonmark";
import { decodeNamedCharacterReference } from "decode-named-character-reference";
import MarkdownIt from "markdown-it";
import { Marked } from "marked";
import { type DefaultTreeAdapterMap, parseFragment } from "parse5";
import punycode from "punycode.js";
import rehypeRaw from "rehype-raw";
import rehypeStringify from "rehype-stringify";
import remarkGfm from "remark-gfm";
import remarkParse from "remark-parse";
import remarkRehype from "remark-rehype";
import { unified } from "unified";

type Parse5Node = DefaultTreeAdapterMap["childNode"] | DefaultTreeAdapterMap["documentFragment"];

/** Characters a reader cannot see, or sees as a blank (tab and line breaks aside): none may reach a rendered text. */
const UNSEEN = /[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}\p{Co}\p{Cn}\p{Cs}\p{Zl}\p{Zp}\u2800\uFFFC]/u;

/** Characters that render as nothing or a blank wherever they stand (joiners and selectors may do a job). */
export const ALWAYS_HIDDEN =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u00ad\u200b\u200e\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\u2800\u3164\ufeff\ufffc\u{1d159}\u{e0000}-\u{e001f}\u{e0069}\p{Co}\p{Cs}\p{Noncharacter_Code_Point}]/u;

/**
 * Invisible characters doing a visible job, as Unicode uses them: a presentation selector after an
 * emoji, a joiner inside an emoji sequence or between letters of a script that joins them, the three
 * subdivision flags. Taken out before the check.
 */
const VISIBLE_JOBS = [
  /(?<=\p{Emoji}[\u{1F3FB}-\u{1F3FF}]?)[\uFE0E\uFE0F]/gu,
  /(?<=\p{Extended_Pictographic}[\u{1F3FB}-\u{1F3FF}\uFE0F]?)\u200D(?=\p{Extended_Pictographic})/gu,
  /(?<=[\p{Script=Arabic}\p{Script=Syriac}\p{Script=Nko}\p{Script=Mongolian}\p{Script=Devanagari}\p{Script=Bengali}\p{Script=Gurmukhi}\p{Script=Gujarati}\p{Script=Oriya}\p{Script=Tamil}\p{Script=Telugu}\p{Script=Kannada}\p{Script=Malayalam}\p{Script=Sinhala}])[\u200C\u200D]/gu,
  /(?<=\u{1F3F4})\u{E0067}\u{E0062}(?:\u{E0065}\u{E006E}\u{E0067}|\u{E0073}\u{E0063}\u{E0074}|\u{E0077}\u{E006C}\u{E0073})\u{E007F}/gu,
];
const withoutVisibleJobs = (text: string) => VISIBLE_JOBS.reduce((out, job) => out.replace(job, ""), text);

/** Whether plain `text` holds a character a person cannot see (tab and line breaks aside). */
export const hasUnseen = (text: string) => UNSEEN.test(withoutVisibleJobs(text).replace(/[\t\n\r]/g, ""));

// ---------------------------------------------------------------- the renderers

const marked = new Marked();
const markdownIt = (html: boolean, linkify: boolean) => {
  const md = new MarkdownIt({ html, linkify });
  return (text: string) => md.render(text);
};
const remark = unified().use(remarkParse).use(remarkGfm).use(remarkRehype).use(rehypeStringify).freeze();
const remarkRaw = unified()
  .use(remarkParse)
  .use(remarkGfm)
  .use(remarkRehype, { allowDangerousHtml: true })
  .use(rehypeRaw)
  .use(rehypeStringify)
  .freeze();
const commonmarkHtml = new HtmlRenderer();

/** Each renderer set-up the claim names, text in, HTML out. */
export const RENDERERS: Record<string, (text: string) => string> = {
  marked: (text) => marked.parse(text, { async: false }),
  "markdown-it": markdownIt(false, false),
  "markdown-it html": markdownIt(true, false),
  "markdown-it linkify": markdownIt(false, true),
  "markdown-it html linkify": markdownIt(true, true),
  "remark-rehype": (text) => String(remark.processSync(text)),
  "remark-rehype raw": (text) => String(remarkRaw.processSync(text)),
  "commonmark.js": (text) => commonmarkHtml.render(new Parser().parse(text)),
};

// ---------------------------------------------------------------- what the HTML shows

/** Elements that only format the text they hold (the table ones for the assistant's own tables). */
const FORMATTING = new Set(
  "p em strong del s code pre ul ol li blockquote h1 h2 h3 h4 h5 h6 hr br table thead tbody tr th td".split(
    " ",
  ),
);
/** Attributes that show or format nothing hidden, by element. */
const ATTRIBUTES: Record<string, RegExp> = {
  ol: /^(?:start|class)$/,
  input: /^(?:type|checked|disabled)$/,
  li: /^class$/,
  ul: /^class$/,
  th: /^(?:align|style)$/,
  td: /^(?:align|style)$/,
};

const PERCENT_RUN = /(?:%[0-9A-Fa-f]{2})+/g;
/** `text` with its percent escapes decoded where they are UTF-8 (a linkifier shows them so). */
const percentDecoded = (text: string) =>
  text.replace(PERCENT_RUN, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
const REFERENCE = /&(?:#[0-9]{1,7}|#[Xx][0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{0,31});/g;
/** `text` with its character references decoded. */
const referencesDecoded = (text: string) =>
  text.replace(REFERENCE, (ref) => {
    if (ref[1] !== "#") return decodeNamedCharacterReference(ref.slice(1, -1)) || ref;
    const hex = ref[2] === "x" || ref[2] === "X";
    const point = Number.parseInt(ref.slice(hex ? 3 : 2, -1), hex ? 16 : 10);
    return point > 0 && point <= 0x10ffff ? String.fromCodePoint(point) : "\uFFFD";
  });

/** A link's target as a person would read it: escapes decoded, punycode labels in Unicode. */
const targetAsRead = (href: string) =>
  percentDecoded(href).replace(/(?<![A-Za-z0-9-])xn--[A-Za-z0-9-]+/gi, (label) => punycode.toUnicode(label));

const BASE = "https://host.invalid/";
/** The host a browser reads from `url` (WHATWG parsing: `\` is `/` in http(s)), or undefined. */
function hostOf(url: string): string | undefined {
  try {
    return new URL(url, BASE).host;
  } catch {
    return undefined;
  }
}

/** Whether a link shows where it goes: its text is its target, an http(s), ftp or mailto one, or `//host`. */
function linkShows(text: string, href: string, source: string): boolean {
  if (!/^(?:(?:https?|ftp|mailto):|\/\/)/i.test(href)) return false;
  // A text that shows a second address after a blank (a linkifier decodes `%0A`) shows two places.
  if (/[\s\p{Cc}][\s\S]*(?::\/\/|www\.)/iu.test(text)) return false;
  const target = targetAsRead(href);
  // Hosts compare without case (punycode decodes to lower case).
  const read = [text, `http://${text}`, `mailto:${text}`].filter((candidate) => {
    const decoded = percentDecoded(candidate);
    return decoded.toLowerCase() === target.toLowerCase() || decoded === percentDecoded(href);
  });
  // The text must also be what the source says, not a look-alike a renderer made of it.
  const unescaped = source.replace(/\\([!-/:-@[-`{-~])/g, "$1");
  const forms = [source, unescaped, percentDecoded(source), referencesDecoded(unescaped)];
  const inSource = forms.some((form) => form.includes(text));
  // And a browser reading the text as that address goes to the target's host (`a.example\@b.example`
  // reads as a.example, while its target `a.example%5C@b.example` is b.example); a target with no
  // host a browser accepts goes nowhere, and so does text a browser reads no host from (Node's URL
  // parser, the stand-in for a browser's, accepts more IDNA labels from version to version).
  const host = /^mailto:/i.test(href) ? undefined : hostOf(href);
  const sameHost =
    host === undefined ||
    read.some((address) => {
      const readHost = hostOf(address);
      return readHost === undefined || readHost === host;
    });
  return read.length > 0 && inSource && sameHost;
}

const LETTERS = /[\p{L}\p{N}]/gu;
/** Ordered list numbers and task list boxes: shown, as markers rather than text. */
const LIST_MARKER =
  /^((?:[ \t]*(?:>|[-*+](?=[ \t])|\d{1,9}[.)](?=[ \t]|$)))*[ \t]*)(?:\[[ xX]\](?=[ \t]))?/gm;
const lettersOf = (text: string) => (text.match(LETTERS) ?? []).join("").toLowerCase();

/** Whether the letters and digits of `expected` appear in `shown`, in order. */
function isSubsequence(expected: string, shown: string): boolean {
  let at = 0;
  for (const char of shown) {
    if (at < expected.length && expected.startsWith(char, at)) at += char.length;
  }
  return at >= expected.length;
}

/** What is wrong in one renderer's `html` of `source`; `ownHref` is a link the wrapping context makes itself. */
function judgeHtml(html: string, source: string, ownHref?: string): string[] {
  const found: string[] = [];
  let shown = "";
  // A task list's checkbox sits in its item, or in the item's paragraph when the list is loose.
  const visit = (node: Parse5Node, inItem: boolean) => {
    if (node.nodeName === "#text" && "value" in node) {
      if (hasUnseen(node.value)) found.push(`invisible character in ${JSON.stringify(node.value)}`);
      shown += node.value;
      return;
    }
    if (node.nodeName === "#comment") {
      found.push("comment");
      return;
    }
    if (!("childNodes" in node)) return;
    if ("tagName" in node) {
      const tag = node.tagName;
      if (!FORMATTING.has(tag) && tag !== "a" && !(tag === "input" && inItem)) found.push(`element <${tag}>`);
      for (const { name, value } of node.attrs) {
        if (tag === "a" && name === "href") continue;
        if (tag === "code" && name === "class") found.push(`fence info ${JSON.stringify(value)}`);
        else if (!ATTRIBUTES[tag]?.test(name)) found.push(`attribute ${name} on <${tag}>`);
      }
      if (tag === "input" && node.attrs.some(({ name }) => name === "checked")) shown += "x";
      if (tag === "a") {
        const href = node.attrs.find(({ name }) => name === "href")?.value ?? "";
        const text = textOf(node);
        if (href !== ownHref && !linkShows(text, href, source))
          found.push(`link ${JSON.stringify(text)} to ${JSON.stringify(href)}`);
      }
    }
    const item = inItem || ("tagName" in node && node.tagName === "li");
    for (const child of node.childNodes) visit(child, item);
  };
  visit(parseFragment(html), false);
  // The wrapping link's own target is not text of the source.
  const own = ownHref === undefined ? source : source.replace(`](${ownHref})`, "]");
  // A character reference shows as what it decodes to (or as typed, in code): its name need not show.
  const expected = [own, percentDecoded(own)].map((text) =>
    lettersOf(text.replace(LIST_MARKER, "").replace(REFERENCE, "")),
  );
  const seen = lettersOf(shown);
  if (!expected.some((letters) => isSubsequence(letters, seen))) found.push("text that does not show");
  return found;
}

function textOf(node: Parse5Node): string {
  if (node.nodeName === "#text" && "value" in node) return node.value;
  return "childNodes" in node ? node.childNodes.map(textOf).join("") : "";
}

/** What the judge found in each text it read: the tests ask about the same texts again and again. */
const judged = new Map<string, readonly string[]>();
const JUDGED_TEXTS = 20_000;

/**
 * Every hidden thing in Markdown `text`, by renderer ("marked: element <img>"): empty when a person
 * sees all of it in every one. `ownHref` is the target of a link the assistant builds around the text.
 */
export function hiddenIn(text: string, ownHref?: string): string[] {
  const key = `${ownHref ?? ""}\u0000${text}`;
  let found = judged.get(key);
  if (!found) {
    if (judged.size >= JUDGED_TEXTS) judged.clear();
    found = Object.entries(RENDERERS).flatMap(([name, render]) =>
      judgeHtml(render(text), text, ownHref).map((what) => `${name}: ${what}`),
    );
    judged.set(key, found);
  }
  return [...found];
}

// ---------------------------------------------------------------- how an assistant quotes text

/** The assistant's own link target, for a text it puts in a link label. */
export const OWN_HREF = "https://app.example/tasks/1";

/** Two strings joined the ways an assistant quotes them side by side. */
export const JOINS = {
  space: (a, b) => `${a} ${b}`,
  newline: (a, b) => `${a}\n${b}`,
  colon: (a, b) => `${a}: ${b}`,
  dash: (a, b) => `${a} — ${b}`,
  "bold label": (a, b) => `**Title:** ${a} **Description:** ${b}`,
  "code span then text": (a, b) => `**Name:** \`${a}\` **Description:** ${b}`,
  "table row": (a, b) => `| Title | Description |\n|---|---|\n| ${a} | ${b} |`,
} satisfies Record<string, (a: string, b: string) => string>;

/** One string inside the assistant's own constructs. */
export const WRAPS = {
  "code span": (text) => `Title: \`${text}\``,
  "code span at a line's start": (text) => `\`${text}\``,
  "code span in a list item": (text) => `- \`${text}\``,
  "code span in a block quote": (text) => `> \`${text}\``,
  fence: (text) => `\`\`\`\n${text}\n\`\`\``,
  "list item": (text) => `- ${text}`,
  "block quote": (text) => `> ${text}`,
  "link label": (text) => `[${text}](${OWN_HREF})`,
  "table cell": (text) => `| Title |\n|---|\n| ${text} |`,
  heading: (text) => `## ${text}`,
} satisfies Record<string, (text: string) => string>;

/** Everything hidden in `text` alone and in each wrapping context, by context. */
export function hiddenInContexts(text: string): string[] {
  return [
    ...hiddenIn(text).map((what) => `alone: ${what}`),
    ...Object.entries(WRAPS).flatMap(([name, wrap]) =>
      hiddenIn(wrap(text), name === "link label" ? OWN_HREF : undefined).map((what) => `${name}: ${what}`),
    ),
  ];
}

/** Everything hidden where `a` and `b` are joined, by join. */
export function hiddenInJoins(a: string, b: string): string[] {
  return Object.entries(JOINS).flatMap(([name, join]) =>
    hiddenIn(join(a, b)).map((what) => `${name}: ${what}`),
  );
}

// ---------------------------------------------------------------- plain text as CommonMark reads it

function commonmarkText(node: Node): string {
  let out = "";
  const walker = node.walker();
  for (let step = walker.next(); step; step = walker.next()) {
    if (step.entering && step.node.literal) out += step.node.literal;
  }
  return out;
}

/** The text a person reads where `text` is rendered as one paragraph: what its inline nodes show. */
export function readAs(text: string): string {
  return commonmarkText(new Parser().parse(text));
}
