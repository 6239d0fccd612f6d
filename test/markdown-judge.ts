// What a person would not see of a text rendered as Markdown, decided by the CommonMark reference
// parser (commonmark.js): raw HTML, images, link reference definitions, links that point elsewhere than
// http(s), mailto or a path of the same site, or whose label shows nothing, link titles (shown only on hover), fence info strings
// beyond a language name, and characters that render as nothing or as a blank.
import { type Node, Parser } from "commonmark";

/** Characters a reader cannot see, or sees as a blank (tab and line breaks aside): none may reach a rendered text. */
const UNSEEN = /[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}\p{Co}\p{Cn}\p{Cs}\p{Zl}\p{Zp}\u2800\uFFFC]/u;
const LANGUAGE = /^[A-Za-z0-9_+#.-]{0,32}$/;

/** Characters that render as nothing or a blank wherever they stand (joiners and selectors may do a job). */
export const ALWAYS_HIDDEN =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u00ad\u200b\u200e\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\u2800\u3164\ufeff\ufffc\u{1d159}\u{e0000}-\u{e001f}\u{e0069}\p{Co}\p{Cs}\p{Noncharacter_Code_Point}]/u;

/** A destination a person can judge: http(s), mailto, or a path on the same site (the parser percent-encodes). */
function judgedSafe(destination: string): boolean {
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(destination)) return /^(?:https?|mailto):/i.test(destination);
  return (
    destination !== "" && !/^(?:\/\/|\/%5C|%5C%5C|%5C\/)/i.test(destination) && !/^[^/?#]*:/.test(destination)
  );
}

/**
 * Invisible characters doing a visible job, as Unicode uses them: a presentation selector after an
 * emoji, a joiner inside an emoji sequence or between letters of a script that joins them, an
 * ideographic variation selector after a Han character, the three subdivision flags. Taken out before
 * the check.
 */
const VISIBLE_JOBS = [
  /(?<=\p{Emoji}[\u{1F3FB}-\u{1F3FF}]?)[\uFE0E\uFE0F]/gu,
  /(?<=\p{Extended_Pictographic}[\u{1F3FB}-\u{1F3FF}\uFE0F]?)\u200D(?=\p{Extended_Pictographic})/gu,
  /(?<=[\p{Script=Arabic}\p{Script=Syriac}\p{Script=Nko}\p{Script=Mongolian}\p{Script=Devanagari}\p{Script=Bengali}\p{Script=Gurmukhi}\p{Script=Gujarati}\p{Script=Oriya}\p{Script=Tamil}\p{Script=Telugu}\p{Script=Kannada}\p{Script=Malayalam}\p{Script=Sinhala}])[\u200C\u200D]/gu,
  /(?<=\p{Script=Han})[\u{E0100}-\u{E01EF}]/gu,
  /(?<=\u{1F3F4})\u{E0067}\u{E0062}(?:\u{E0065}\u{E006E}\u{E0067}|\u{E0073}\u{E0063}\u{E0074}|\u{E0077}\u{E006C}\u{E0073})\u{E007F}/gu,
];
const withoutVisibleJobs = (text: string) => VISIBLE_JOBS.reduce((out, job) => out.replace(job, ""), text);

/** Whether plain `text` holds a character a person cannot see (tab and line breaks aside). */
export const hasUnseen = (text: string) => UNSEEN.test(withoutVisibleJobs(text).replace(/[\t\n\r]/g, ""));

/** What the judge found in each text it read: the tests ask about the same texts again and again. */
const judged = new Map<string, readonly string[]>();
const JUDGED_TEXTS = 20_000;

/** Every hidden thing in `text` read as CommonMark: empty when a person sees all of it. */
export function hiddenIn(text: string): string[] {
  let found = judged.get(text);
  if (!found) {
    if (judged.size >= JUDGED_TEXTS) judged.clear();
    found = judge(text);
    judged.set(text, found);
  }
  return [...found];
}

function judge(text: string): string[] {
  const found: string[] = [];
  const parser = new Parser();
  const tree = parser.parse(text);
  const references = Object.keys((parser as unknown as { refmap: Record<string, unknown> }).refmap);
  if (references.length > 0) found.push(`reference definitions ${references.join(", ")}`);
  const walker = tree.walker();
  for (let step = walker.next(); step; step = walker.next()) {
    if (!step.entering) continue;
    const node: Node = step.node;
    switch (node.type) {
      case "html_block":
      case "html_inline":
        found.push(`${node.type} ${JSON.stringify(node.literal)}`);
        break;
      case "image":
        found.push(`image ${node.destination}`);
        break;
      case "link": {
        const label = textOf(node);
        const target = node.destination ?? "";
        if (!judgedSafe(target)) found.push(`link to ${JSON.stringify(target)}`);
        if (label.replace(/[\s\u00A0*_~`]/gu, "") === "" || ALWAYS_HIDDEN.test(label))
          found.push(`blank link label to ${node.destination}`);
        if (node.title) found.push(`link title ${JSON.stringify(node.title)}`);
        break;
      }
      case "code_block":
        if (!LANGUAGE.test(node.info ?? "")) found.push(`fence info ${JSON.stringify(node.info)}`);
        break;
    }
    if (node.literal && hasUnseen(node.literal)) {
      found.push(`invisible character in ${node.type} ${JSON.stringify(node.literal)}`);
    }
  }
  return found;
}

/** The text a node shows: its text, code and line breaks. */
function textOf(node: Node): string {
  let out = "";
  const walker = node.walker();
  for (let step = walker.next(); step; step = walker.next()) {
    if (step.entering && step.node.literal) out += step.node.literal;
  }
  return out;
}

/** The text a person reads where `text` is rendered as one paragraph: what its inline nodes show. */
export function readAs(text: string): string {
  return textOf(new Parser().parse(text));
}
