// What a Markdown renderer would show hidden, run, fetch, or point elsewhere than its text says, decided
// by parsing (micromark, CommonMark and GFM) and made to show as typed with backslash escapes, which
// CommonMark defines for every ASCII punctuation character. The text is read both as plain CommonMark
// and as GFM, so that it is safe whichever the reader's renderer is; the result is parsed again until
// nothing is left. What is neutralized and why: docs/security.md.
import { parse, postprocess, preprocess } from "micromark";
import { gfm } from "micromark-extension-gfm";
import { decodeString } from "micromark-util-decode-string";
import type { Event, ParseContext, Token } from "micromark-util-types";
import { hiddenAlone, replaceHidden } from "./hidden.js";

/** An edit of the source: the characters from `at` to `end` replaced by `insert`. */
interface Edit {
  at: number;
  end: number;
  insert: string;
}

/** An info string that is a language name (`ts`, `c++`, `objective-c`): anything else is hidden text. */
const LANGUAGE = /^[A-Za-z0-9_+#.-]{1,32}$/;
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;
const SAFE_SCHEME = /^(?:https?|mailto):/i;
/** What may follow `<` where a tag, comment, declaration or processing instruction opens. */
const TAG_START = /^[A-Za-z!?/]$/;
/** A tag name then whitespace as JavaScript reads it (any Unicode space), or the end of the text. */
const TAG_THEN_SPACE = /^<\/?[A-Za-z][A-Za-z0-9-]{0,31}(?:\s|$)/;
/** What may stand before an HTML block's opening on its line: indentation and container markers. */
const BLOCK_PREFIX = /^[\s>*+\-\d.)]*$/;

/** Whether the `<` at `open` opens its line (after container markers) and is followed by a tag name and a space. */
function opensBlock(text: string, open: number): boolean {
  const lineStart = text.lastIndexOf("\n", open - 1) + 1;
  return BLOCK_PREFIX.test(text.slice(lineStart, open)) && TAG_THEN_SPACE.test(text.slice(open, open + 34));
}
/** ASCII punctuation: what the last resort escapes, every one of it. */
const PUNCTUATION = /[!-/:-@[-`{-~]/g;
/** Texts up to this long are remembered with their result (answers are asked for again and again), this many. */
const MEMO_CHARS = 4096;
const MEMO_ENTRIES = 2000;
const memo = new Map<string, { text: string; escaped: number }>();
/** Parse-and-escape rounds before the last resort: each round shows what the escapes of the one before revealed. */
const MAX_PASSES = 4;

// Building a parser combines its extensions (0.1 to 0.2 ms): one of each is kept, and what it learns
// of a document (the definitions, and which lines are lazy continuations: ParseContext's `defined` and
// `lazy`, and the GFM footnotes) is reset before each text, as a fresh parser would start.
let parsers: { commonmark: ParseContext; gfm: ParseContext } | undefined;

function eventsOf(parser: ParseContext, text: string): Event[] {
  parser.defined = [];
  parser.lazy = {};
  (parser as { gfmFootnotes?: string[] }).gfmFootnotes = [];
  return postprocess(parser.document().write(preprocess()(text, undefined, true)));
}

/** Whether a link target is one a person can see and judge: http(s), mailto, or a path on the page's own site. */
export function safeTarget(url: string): boolean {
  // As a browser reads it: tabs and line breaks dropped, leading and trailing controls and spaces trimmed.
  const cleaned = url.replace(/[\t\n\r]/g, "").replace(/^[\0- ]+|[\0- ]+$/g, "");
  if (cleaned === "") return false;
  if (SCHEME.test(cleaned)) return SAFE_SCHEME.test(cleaned);
  // `//host`, `\\host` and `/\host` name another host; a colon before the path is a scheme in disguise.
  return !/^[\\/]{2}/.test(cleaned) && !/^[^/?#]*:/.test(cleaned);
}

/** Whether a label's source renders as something a person sees: more than blanks and emphasis marks. */
function labelShows(source: string): boolean {
  const shown = replaceHidden(decodeString(source), () => "").text;
  return /[^\s*_~`]/u.test(shown);
}

/** The index of the exit event of the token entered at `index`. */
function exitOf(events: Event[], index: number): number {
  const token = (events[index] as Event)[1];
  let i = index + 1;
  while (i < events.length && (events[i] as Event)[1] !== token) i++;
  return i;
}

/** The index of the first token of `type` entered between `from` and `to`, or -1. */
function indexOf(events: Event[], from: number, to: number, type: string): number {
  for (let i = from; i < to; i++) {
    const [kind, token] = events[i] as Event;
    if (kind === "enter" && token.type === type) return i;
  }
  return -1;
}

/** The first token of `type` entered between `from` and `to`, if any. */
function firstOf(events: Event[], from: number, to: number, type: string): Token | undefined {
  const index = indexOf(events, from, to, type);
  return index < 0 ? undefined : (events[index] as Event)[1];
}

/** Whether the link entered at `index` shows where it goes: a visible label, a safe target, no hover title. */
function linkShows(events: Event[], index: number, text: string): boolean {
  const end = exitOf(events, index);
  const label = indexOf(events, index + 1, end, "label");
  if (label < 0) return false;
  const labelEnd = exitOf(events, label);
  // A reference link goes where its definition says; every definition is escaped, so it will not link.
  if (firstOf(events, labelEnd, end, "reference")) return true;
  if (!firstOf(events, labelEnd, end, "resource")) return true;
  if (firstOf(events, labelEnd, end, "resourceTitle")) return false;
  const labelText = firstOf(events, index + 1, labelEnd, "labelText");
  if (!labelText || !labelShows(text.slice(labelText.start.offset, labelText.end.offset))) return false;
  const destination = firstOf(events, labelEnd, end, "resourceDestinationString");
  return (
    destination !== undefined &&
    safeTarget(decodeString(text.slice(destination.start.offset, destination.end.offset)))
  );
}

/** The edits that show what one parse of `text` would hide, added to `edits`. */
function collectEdits(events: Event[], text: string, edits: Edit[]): void {
  const escapeAt = (at: number) => edits.push({ at, end: at, insert: "\\" });
  for (let i = 0; i < events.length; i++) {
    const [kind, token] = events[i] as Event;
    if (kind !== "enter") continue;
    const at = token.start.offset;
    switch (token.type) {
      // Raw HTML (blocks and inline), and definitions, which render as nothing: their opening shown.
      case "htmlFlow":
      case "htmlText":
      case "definition":
      case "gfmFootnoteDefinition":
        escapeAt(at);
        break;
      case "image":
        escapeAt(at + 1); // `!\[alt](url)`: the alt text and the URL show, nothing is fetched
        break;
      case "link":
        if (!linkShows(events, i, text)) escapeAt(at);
        break;
      case "autolink": {
        const protocol = firstOf(events, i + 1, exitOf(events, i), "autolinkProtocol");
        if (protocol && !safeTarget(text.slice(protocol.start.offset, protocol.end.offset))) escapeAt(at);
        break;
      }
      case "characterReference":
        if ([...decodeString(text.slice(at, token.end.offset))].some(hiddenAlone)) escapeAt(at);
        break;
      case "data":
        // Parsers differ at the edges of raw HTML (micromark ends an unquoted attribute value at `/`,
        // where the CommonMark spec and its reference parser read on; JavaScript parsers take any
        // Unicode space after a tag name for whitespace, so `<style` and a no-break space opens an HTML
        // block there): a tag's opening in plain text, with a `>` after it, or opening a line with a
        // space after its name, is shown as typed too.
        for (
          let open = text.indexOf("<", at);
          open >= 0 && open < token.end.offset;
          open = text.indexOf("<", open + 1)
        ) {
          if (!TAG_START.test(text.charAt(open + 1))) continue;
          if (text.includes(">", open) || opensBlock(text, open)) escapeAt(open);
        }
        break;
      case "codeFencedFenceInfo": {
        // Only a language name stays: other words, and anything after the name, are dropped.
        const infoEnd = exitOf(events, i);
        const meta = firstOf(
          events,
          infoEnd + 1,
          Math.min(infoEnd + 4, events.length),
          "codeFencedFenceMeta",
        );
        const metaEnd = meta?.end.offset;
        if (!LANGUAGE.test(text.slice(at, token.end.offset))) {
          edits.push({ at, end: metaEnd ?? token.end.offset, insert: "" });
        } else if (metaEnd !== undefined) {
          edits.push({ at: token.end.offset, end: metaEnd, insert: "" });
        }
        break;
      }
    }
  }
}

/** Tokens only GFM makes: where one occurs, the plain CommonMark reading may differ. */
const GFM_TOKENS = new Set([
  "table",
  "strikethrough",
  "literalAutolink",
  "gfmFootnoteCall",
  "gfmFootnoteDefinition",
  "taskListCheck",
]);

/**
 * Every edit either reading (GFM, CommonMark) of `text` asks for. Extensions only add constructs: a
 * text in which GFM's reading found none of its own reads the same as plain CommonMark, and is parsed once.
 */
function findEdits(text: string): Edit[] {
  parsers ??= { commonmark: parse(), gfm: parse({ extensions: [gfm()] }) };
  const edits: Edit[] = [];
  const events = eventsOf(parsers.gfm, text);
  collectEdits(events, text, edits);
  if (events.some(([kind, token]) => kind === "enter" && GFM_TOKENS.has(token.type))) {
    collectEdits(eventsOf(parsers.commonmark, text), text, edits);
  }
  return edits;
}

/** `text` with `edits` made, each once (both readings may ask for the same), and how many were made. */
function applyEdits(text: string, edits: Edit[]): { text: string; count: number } {
  edits.sort((a, b) => a.at - b.at || a.end - b.end);
  let out = "";
  let copied = 0;
  let insertedAt = -1;
  let count = 0;
  for (const edit of edits) {
    if (edit.at < copied || (edit.at === edit.end && edit.at === insertedAt)) continue;
    out += text.slice(copied, edit.at) + edit.insert;
    copied = edit.end;
    if (edit.at === edit.end) insertedAt = edit.at;
    count += 1;
  }
  return { text: out + text.slice(copied), count };
}

/**
 * `text` (hidden characters already removed) with every construct that would render hidden, run,
 * fetch or mislead made to show as typed, and how many edits that took. Text with nothing of the
 * kind comes back as it is. What is returned has been parsed again and found clean; constructs nested
 * to reveal one another round after round end in every ASCII punctuation character escaped.
 */
export function neutralizeMarkup(text: string): { text: string; escaped: number } {
  const known = text.length <= MEMO_CHARS ? memo.get(text) : undefined;
  if (known) return known;
  const result = neutralize(text);
  if (text.length <= MEMO_CHARS) {
    if (memo.size >= MEMO_ENTRIES) memo.delete(memo.keys().next().value as string);
    memo.set(text, result);
  }
  return result;
}

function neutralize(text: string): { text: string; escaped: number } {
  let out = text;
  let escaped = 0;
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const edits = findEdits(out);
    if (edits.length === 0) return { text: out, escaped };
    const applied = applyEdits(out, edits);
    out = applied.text;
    escaped += applied.count;
  }
  if (findEdits(out).length === 0) return { text: out, escaped };
  // With every `<`, `[`, `&`, backtick and tilde escaped, no construct above can open.
  return { text: out.replace(PUNCTUATION, "\\$&"), escaped: escaped + 1 };
}

/** What either reading of `text` would hide (none once neutralized): for tests and checks. */
export function hiddenConstructs(text: string): number {
  return findEdits(text).length;
}
