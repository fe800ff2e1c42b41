/**
 * Keeps the credentials a request carries out of error texts: a gateway that echoes the
 * `Authorization` header would otherwise put the API key into `errorMessage`, events and
 * session files.
 *
 * @module
 */

/** Secrets shorter than this are not replaced: `"k"` would take every k of a message. */
export const MIN_REDACTED_CHARS = 8;

/** Userinfo (`user:password@`) after a URL's scheme. */
// Up to the last `@` before the path, as URL parsers read it (`u:p@ss@host`: password `p@ss`).
const USERINFO = /\b(https?:\/\/)[^\s/?#]*@/gi;

/** A header whose name says it carries a credential (`Authorization`, `api-key`, `X-Auth-Token`). */
export const CREDENTIAL_HEADER = /auth|key|token|secret|password|cookie|session|credential/i;

/**
 * A base URL as error texts show it: without `user:password@`.
 *
 * @param url The base URL.
 * @returns It without userinfo.
 *
 * @example
 * ```ts
 * import { withoutUserinfo } from "@tack/agent/sdk/providers/openai";
 * import { equal } from "node:assert/strict";
 *
 * equal(withoutUserinfo("https://me:pw@proxy.example/v1"), "https://proxy.example/v1");
 * ```
 */
export function withoutUserinfo(url: string): string {
  return url.replace(USERINFO, "$1");
}

/**
 * A function that replaces, in any text, the API key with `<apiKey>`, the value of each
 * custom header whose name says it is a credential (`auth`, `key`, `token`, `secret`,
 * `password`, `cookie`, `session`; each word of it too, such as a token after `Bearer`)
 * with `<headers.NAME>`, and the userinfo of any URL with nothing. Secrets shorter than
 * {@linkcode MIN_REDACTED_CHARS} are left alone.
 *
 * @param apiKey The API key (none for a placeholder).
 * @param headers The custom headers.
 * @returns The redacting function.
 *
 * @example A gateway echoing the Authorization header
 * ```ts
 * import { redactor } from "@tack/agent/sdk/providers/openai";
 * import { equal } from "node:assert/strict";
 *
 * const redact = redactor("sk-secret-123456", {
 *   "x-api-key": "Key hdr-secret-7890",
 *   "X-Title": "Refactoring assistant",
 * });
 * equal(redact("bad: Bearer sk-secret-123456"), "bad: Bearer <apiKey>");
 * equal(redact("got hdr-secret-7890"), "got <headers.x-api-key>");
 * equal(redact("Refactoring assistant"), "Refactoring assistant"); // not a credential
 * equal(redact("at https://u:p@ss@host/v1"), "at https://host/v1");
 * ```
 */
export function redactor(
  apiKey: string | undefined,
  headers: Record<string, string> = {},
): (text: string) => string {
  const secrets: [string, string][] = [];
  const add = (value: string, label: string) => {
    if (value.length >= MIN_REDACTED_CHARS) secrets.push([value, label]);
  };
  if (apiKey !== undefined) add(apiKey, "<apiKey>");
  for (const [name, value] of Object.entries(headers)) {
    // `Content-Type: application/json` or `X-Title: Refactoring assistant` are no secrets:
    // replaced, they took those words out of every message.
    if (!CREDENTIAL_HEADER.test(name)) continue;
    add(value, `<headers.${name}>`);
    for (const word of value.split(/\s+/)) add(word, `<headers.${name}>`);
  }
  secrets.sort((a, b) => b[0].length - a[0].length); // a whole value before its words
  return (text) => {
    let out = text.replace(USERINFO, "$1");
    for (const [value, label] of secrets) out = out.replaceAll(value, label);
    return out;
  };
}
