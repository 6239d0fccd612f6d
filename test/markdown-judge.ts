// The tests' judge of what a person would see: the CommonMark reference parser (commonmark.js), a
// parser other than the one the server decides with (micromark), so that the two must agree. It lists
// whatever in a text would render hidden, run, fetch, or point elsewhere than its text says.
import { type Node, Parser } from "commonmark";

/** Characters that render as nothing or a blank wherever they stand (joiners and selectors may do a job). */
export const ALWAYS_HIDDEN =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u00ad\u200b\u200e\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\u2800\u3164\ufeff\ufffc\u{1d159}\u{e0000}-\u{e001f}\u{e0069}\p{Co}\p{Cs}\p{Noncharacter_Code_Point}]/u;
const LANGUAGE = /^[A-Za-z0-9_+#.-]{1,32}$/;

/** A destination a person can judge: http(s), mailto, or a path on the same site (the parser percent-encodes). */
function judgedSafe(destination: string): boolean {
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(destination)) return /^(?:https?|mailto):/i.test(destination);
  return (
    destination !== "" && !/^(?:\/\/|\/%5C|%5C%5C|%5C\/)/i.test(destination) && !/^[^/?#]*:/.test(destination)
  );
}

/** The text a node renders, as literal characters. */
function literalOf(node: Node): string {
  let out = "";
  const walker = node.walker();
  for (let step = walker.next(); step; step = walker.next()) {
    if (step.entering && step.node.literal) out += step.node.literal;
  }
  return out;
}

/** Whatever in `text`, parsed as CommonMark, renders hidden, runs, fetches or misleads: empty when nothing. */
export function hiddenIn(text: string): string[] {
  const parser = new Parser();
  const tree = parser.parse(text);
  const found: string[] = [];
  const refmap = (parser as unknown as { refmap?: Record<string, unknown> }).refmap ?? {};
  if (Object.keys(refmap).length > 0) found.push(`definition ${Object.keys(refmap).join(", ")}`);
  const walker = tree.walker();
  for (let step = walker.next(); step; step = walker.next()) {
    const { node, entering } = step;
    if (!entering) continue;
    switch (node.type) {
      case "html_block":
      case "html_inline":
        found.push(`html ${node.literal}`);
        break;
      case "image":
        found.push(`image ${node.destination}`);
        break;
      case "link": {
        const label = literalOf(node).replace(/[\s*_~`]/gu, "");
        if (node.title) found.push(`link title ${node.title}`);
        if (label === "" || ALWAYS_HIDDEN.test(label)) found.push(`blank link to ${node.destination}`);
        if (!judgedSafe(node.destination ?? "")) found.push(`link to ${node.destination}`);
        break;
      }
      case "code_block":
        if (node.info && !LANGUAGE.test(node.info)) found.push(`info string ${node.info}`);
        break;
      case "text":
      case "code":
        if (node.literal && ALWAYS_HIDDEN.test(node.literal))
          found.push(`hidden character in ${node.literal}`);
        break;
    }
  }
  return found;
}
