/**
 * Globs for tool names and path arguments.
 *
 * @module
 */

import { LinearRegExp } from "../../core/linear_regexp.ts";

function escape(char: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(char) ? `\\${char}` : char;
}

/**
 * Compiles a glob to an anchored regular expression, matched in linear time (RE2), so
 * `*a*a*a*a*b` cannot stall the host on a long value. `*` matches within one path segment,
 * `**` across segments (a `**` segment may also match none), `?` one character other
 * than `/`, `{a,b}` either alternative; everything else is literal.
 *
 * @param glob The pattern, e.g. `mcp_*`, `.git/**`, `*.{env,pem}`.
 * @returns A regular expression matching the whole string.
 * @throws {SyntaxError} When a `{` is not closed.
 *
 * @example Tool names and paths
 * ```ts
 * import { globToRegExp } from "@tack/agent/plugins/rules";
 * import { equal } from "node:assert/strict";
 *
 * equal(globToRegExp("mcp_*").test("mcp_search"), true);
 * equal(globToRegExp(".git/**").test(".git/hooks/pre-commit"), true);
 * equal(globToRegExp("*.env").test("config/.env"), false);
 * ```
 */
export function globToRegExp(glob: string): RegExp {
  let source = "";
  let depth = 0;
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i];
    if (char === "*") {
      if (glob[i + 1] === "*") {
        i++;
        if (glob[i + 1] === "/") {
          i++;
          source += "(?:.*/)?";
        } else {
          source += ".*";
        }
      } else {
        source += "[^/]*";
      }
    } else if (char === "?") {
      source += "[^/]";
    } else if (char === "{") {
      depth++;
      source += "(?:";
    } else if (char === "}" && depth > 0) {
      depth--;
      source += ")";
    } else if (char === "," && depth > 0) {
      source += "|";
    } else {
      source += escape(char);
    }
  }
  if (depth > 0) throw new SyntaxError(`Cannot compile glob "${glob}": a "{" is not closed`);
  return new LinearRegExp(`^${source}$`);
}
