/**
 * The words of an error body a server sent: an HTML page's text without its markup, in one
 * line, cut to a length a model and a person can read.
 *
 * @module
 */

/** How many characters of an error body are kept. */
const PAGE_TEXT_MAX = 500;

/**
 * An HTML page's text: tags, scripts and styles left out. One pass, whatever the page
 * (a server's body: no regular expression that could take quadratic time on `<<<…`).
 *
 * @param page The page.
 * @returns Its text (whitespace as it was).
 *
 * @example
 * ```ts
 * import { textOfPage } from "./page_text.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(textOfPage("<p>Bad<script>x()</script> Gateway</p>").replace(/\s+/g, " ").trim(), "Bad Gateway");
 * ```
 */
export function textOfPage(page: string): string {
  // ASCII only: a full lowercase can change the length (İ is two units), and positions
  // found in it would no longer be the page's.
  const lower = page.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
  let out = "";
  let at = 0;
  while (at < page.length) {
    const open = page.indexOf("<", at);
    if (open === -1) return out + page.slice(at);
    out += page.slice(at, open) + " ";
    const close = page.indexOf(">", open);
    if (close === -1) return out;
    at = close + 1;
    for (const element of ["script", "style"]) {
      if (lower.startsWith(element, open + 1)) {
        const end = lower.indexOf(`</${element}`, at);
        at = end === -1 ? page.length : end;
      }
    }
  }
  return out;
}

/**
 * What an error body says, in one line of at most {@linkcode PAGE_TEXT_MAX} characters: an
 * HTML page (it starts with `<`) as its text, whitespace collapsed, the rest counted.
 *
 * @param body The body, or a message that ends with one.
 * @param max How many characters to keep.
 * @returns The text.
 *
 * @example A gateway's error page
 * ```ts
 * import { pageText } from "./page_text.ts";
 * import { equal } from "node:assert/strict";
 *
 * const page = "<html><head><style>h1{}</style><title>502</title></head><body><h1>Bad Gateway</h1></body></html>";
 * equal(pageText(page), "502 Bad Gateway");
 * equal(pageText("x".repeat(600), 10), "xxxxxxxxxx… (590 more characters)");
 * // A letter whose lowercase is longer (İ) does not shift what is left out.
 * equal(pageText("<p>İİ</p><SCRIPT>var token = 1;</SCRIPT><p>Bad Gateway</p>"), "İİ Bad Gateway");
 * ```
 */
export function pageText(body: string, max: number = PAGE_TEXT_MAX): string {
  const text = (/^\s*</.test(body) ? textOfPage(body) : body).replace(/\s+/g, " ").trim();
  return text.length <= max
    ? text
    : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}
