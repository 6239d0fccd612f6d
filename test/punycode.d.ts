// punycode.js (markdown-it's own, pinned for the judge) ships no types: the one function the judge uses.
declare module "punycode.js" {
  const punycode: { toUnicode(domain: string): string };
  export default punycode;
}
