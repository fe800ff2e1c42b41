/**
 * A small HTML-to-text converter for pages an agent fetches: scripts, styles and tags
 * go, entities are decoded, links keep their text, structure becomes line breaks.
 *
 * @module
 */

const NAMED_ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  copy: "©",
  reg: "®",
  trade: "™",
  hellip: "…",
  mdash: "—",
  ndash: "–",
  lsquo: "‘",
  rsquo: "’",
  ldquo: "“",
  rdquo: "”",
  laquo: "«",
  raquo: "»",
  bull: "•",
  middot: "·",
  deg: "°",
  times: "×",
  divide: "÷",
  euro: "€",
  pound: "£",
  yen: "¥",
  cent: "¢",
  sect: "§",
  para: "¶",
  shy: "",
  zwj: "",
  zwnj: "",
};

/**
 * Decodes HTML character references: the common named ones and every numeric one (one
 * naming a surrogate becomes U+FFFD, as in HTML, so the text stays well-formed UTF-16).
 * Unknown names are left as they are.
 *
 * @param text Text with references such as `&amp;`, `&#233;`, `&#x1F600;`.
 * @returns The decoded text.
 *
 * @example Decoding entities
 * ```ts
 * import { decodeEntities } from "@tack/agent/plugins/http";
 * import { equal } from "node:assert/strict";
 *
 * equal(decodeEntities("Fish &amp; chips &#8211; &#x263A; &unknown;"), "Fish & chips – ☺ &unknown;");
 * ```
 */
export function decodeEntities(text: string): string {
  return text.replace(
    /&(#[xX][0-9a-fA-F]+|#[0-9]+|[a-zA-Z][a-zA-Z0-9]*);/g,
    (whole, ref: string) => {
      if (ref[0] === "#") {
        const code = ref[1] === "x" || ref[1] === "X"
          ? parseInt(ref.slice(2), 16)
          : parseInt(ref.slice(1), 10);
        if (code >= 0xd800 && code <= 0xdfff) return "\uFFFD"; // as HTML has it: never a lone half
        return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
      }
      return NAMED_ENTITIES[ref] ?? NAMED_ENTITIES[ref.toLowerCase()] ?? whole;
    },
  );
}

const DROPPED = /<(script|style|noscript|template|svg|iframe|object|canvas)\b/gi;
// No part of a tag may hold a `<`: a match that fails stops at the next `<` instead of
// rescanning the rest of the page from every `<` (16,384 `<a b` took 7.2 s). Each part of a
// tag matches one way only: an unquoted value does not start with a quote (as HTML has it),
// so `x="y"` is not also an unquoted `"y"` (`href=/a?b=c` still is one value); with both, a tag of 29 such attributes that never closed took
// 19 s, doubling with each (the host's timers stood still meanwhile).
const TAG =
  /<(\/?)([a-zA-Z][a-zA-Z0-9-]*)(?:\s+[^\s=/><]+(?:\s*=\s*(?:"[^"<]*"|'[^'<]*'|[^\s"'=<>`][^\s<>]*))?)*\s*\/?>/g;

/** Marks where a `<pre>` body goes back in; taken out of the page first (see htmlToText). */
const PRE_MARK = "\uE000";

/**
 * Decodes text outside `<pre>` keeping the converter's own marks, but not letting a
 * reference make one: 17 bytes of `&#xE000;0&#xE000;` each copied a `<pre>` body (35 KB of
 * page made 2 million characters).
 */
const decodeText = (text: string) =>
  text.split(PRE_MARK).map((part) => decodeEntities(part).replaceAll(PRE_MARK, "")).join(
    PRE_MARK,
  );

/**
 * Replaces each element `open` finds (its group 1 the tag name, if any) up to the first
 * `closeOf(name)` after it with what `replace` makes of its body and whole text, in time
 * linear in the page: when no closer follows an opener, none follows a later one either, so
 * it is not searched for again. (A lazy `<!--[\s\S]*?-->` searched to the page's end from
 * every opener: 256 KB of `<!--` took 11 s.)
 */
function replaceElements(
  source: string,
  open: RegExp,
  closeOf: (name: string) => RegExp,
  replace: (body: string, whole: string) => string,
): string {
  const unclosed = new Set<string>();
  let out = "";
  let last = 0;
  open.lastIndex = 0;
  for (let opener; (opener = open.exec(source));) {
    const name = (opener[1] ?? "").toLowerCase();
    if (unclosed.has(name)) continue;
    const close = closeOf(name);
    close.lastIndex = open.lastIndex;
    const closer = close.exec(source);
    if (!closer) {
      unclosed.add(name);
      continue;
    }
    const end = closer.index + closer[0].length;
    out += source.slice(last, opener.index) +
      replace(source.slice(open.lastIndex, closer.index), source.slice(opener.index, end));
    last = open.lastIndex = end;
  }
  return out + source.slice(last);
}

/** The closer of an element: `</name>`, any case. */
const closerOf = (name: string) => new RegExp(`<\\/${name}\\s*>`, "gi");
const BLOCKS = new Set([
  "address",
  "article",
  "aside",
  "blockquote",
  "body",
  "dd",
  "details",
  "div",
  "dl",
  "dt",
  "fieldset",
  "figcaption",
  "figure",
  "footer",
  "form",
  "header",
  "hr",
  "html",
  "main",
  "nav",
  "ol",
  "p",
  "section",
  "summary",
  "table",
  "tbody",
  "thead",
  "tfoot",
  "tr",
  "ul",
]);

function tagText(closing: boolean, name: string): string {
  if (name === "br") return "\n";
  if (name === "li") return closing ? "" : "\n- ";
  if (/^h[1-6]$/.test(name)) return closing ? "\n\n" : `\n\n${"#".repeat(Number(name[1]))} `;
  if (name === "p" || name === "blockquote" || name === "table") return "\n\n";
  if (name === "td" || name === "th") return closing ? "" : " ";
  if (name === "tr") return closing ? "" : "\n";
  return BLOCKS.has(name) ? "\n" : "";
}

/**
 * Converts an HTML document or fragment to readable text. Comments, `<head>` (but its
 * `<title>`, which becomes the first line), scripts, styles and other non-text elements
 * are dropped; tags are removed; links keep their text; headings become `#` lines, list
 * items `- ` lines, blocks and `<br>` line breaks; `<pre>` keeps its whitespace;
 * entities are decoded; runs of blank lines are collapsed.
 *
 * @param html The HTML.
 * @returns The text.
 *
 * @example A small page
 * ```ts
 * import { htmlToText } from "@tack/agent/plugins/http";
 * import { equal } from "node:assert/strict";
 *
 * const html = `<html><head><title>Docs</title><style>p{}</style></head>
 *   <body><h1>Tack</h1><p>Read <a href="/guide">the guide</a> &amp; enjoy.</p>
 *   <script>alert(1)</script><ul><li>fs</li><li>shell</li></ul></body></html>`;
 * equal(htmlToText(html), "Docs\n\n# Tack\n\nRead the guide & enjoy.\n\n- fs\n- shell");
 * ```
 */
export function htmlToText(html: string): string {
  // A page's own marks would be taken for placeholders: one `<pre>` body copied once for each
  // (a 312 KB page made a 510-million-character text), or one with no body at all.
  let source = replaceElements(html.replaceAll(PRE_MARK, ""), /<!--/g, () => /-->/g, () => "")
    .replace(/<!DOCTYPE[^<>]*>/gi, "");
  let title: string | undefined;
  replaceElements(source, /<(title)\b[^<>]*>/gi, closerOf, (body, whole) => {
    title ??= body;
    return whole;
  });
  source = replaceElements(source, /<(head)\b/gi, closerOf, () => "");
  source = replaceElements(source, DROPPED, closerOf, () => "");
  const preserved: string[] = [];
  source = replaceElements(source, /<(pre)\b[^<>]*>/gi, closerOf, (body) => {
    preserved.push(decodeEntities(body.replace(TAG, "")));
    return `\n\n${PRE_MARK}${preserved.length - 1}${PRE_MARK}\n\n`;
  });
  let out = "";
  let last = 0;
  for (const match of source.matchAll(TAG)) {
    out += decodeText(source.slice(last, match.index).replace(/\s+/g, " "));
    out += tagText(match[1] === "/", match[2].toLowerCase());
    last = match.index + match[0].length;
  }
  out += decodeText(source.slice(last).replace(/\s+/g, " "));
  if (title !== undefined) {
    const heading = decodeText(title.replace(/\s+/g, " ")).trim();
    if (heading) out = `${heading}\n\n${out}`;
  }
  const text = out
    .split("\n")
    .map((line) => line.replace(/[ \t]+/g, " ").trim())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  return text.replace(
    /\uE000(\d+)\uE000/g,
    (_, i: string) => (preserved[Number(i)] ?? "").replace(/^\n|\n$/g, ""),
  );
}
