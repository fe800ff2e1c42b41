/**
 * Glob patterns for `find` and `grep`: `*`, `?`, `**`, `[abc]`, `[!abc]` and `{a,b}`,
 * matched by the linear-time RE2 engine (a glob like `*a*a*a*a*b` cannot stall the host).
 *
 * @module
 */

import { compileRe2 } from "../../core/linear_regexp.ts";

function escape(char: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(char) ? `\\${char}` : char;
}

function translate(pattern: string): string {
  let out = "";
  let braces = 0;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === "*") {
      if (pattern[i + 1] === "*") {
        const atStart = i === 0 || pattern[i - 1] === "/";
        const slashAfter = pattern[i + 2] === "/";
        if (atStart && slashAfter) {
          out += "(?:[^/]*(?:/|$))*";
          i += 2;
        } else {
          out += ".*";
          i += 1;
        }
      } else {
        out += "[^/]*";
      }
    } else if (char === "?") {
      out += "[^/]";
    } else if (char === "[") {
      const end = pattern.indexOf("]", i + 2);
      if (end === -1) {
        out += "\\[";
        continue;
      }
      let body = pattern.slice(i + 1, end);
      if (body.startsWith("!")) body = "^" + body.slice(1);
      out += `[${body.replaceAll("\\", "\\\\")}]`;
      i = end;
    } else if (char === "{") {
      braces++;
      out += "(?:";
    } else if (char === "}" && braces > 0) {
      braces--;
      out += ")";
    } else if (char === "," && braces > 0) {
      out += "|";
    } else if (char === "\\" && i + 1 < pattern.length) {
      out += escape(pattern[++i]);
    } else {
      out += escape(char);
    }
  }
  return out + ")".repeat(braces);
}

/** A compiled glob. */
export interface Glob {
  /** Whether a path (relative, `/`-separated) matches. */
  test(relativePath: string): boolean;
}

/**
 * Compiles a glob. A pattern without `/` matches a file's name at any depth (`*.ts`); a
 * pattern with `/` matches the whole relative path (`src/**\/*.ts`). `*` and `?` stay
 * within one path segment; `**` spans segments.
 *
 * @param pattern The glob.
 * @returns The compiled matcher.
 * @throws {Error} When the pattern is empty or cannot be compiled (e.g. a bad `[...]` class).
 *
 * @example Matching TypeScript files
 * ```ts
 * import { compileGlob } from "@tack/agent/plugins/fs";
 * import { equal } from "node:assert/strict";
 *
 * equal(compileGlob("*.ts").test("src/a.ts"), true);
 * equal(compileGlob("src/**\/*.{ts,tsx}").test("src/ui/b.tsx"), true);
 * equal(compileGlob("src/*.ts").test("src/ui/b.ts"), false);
 * ```
 */
export function compileGlob(pattern: string): Glob {
  const cleaned = pattern.replace(/^\.\//, "");
  if (cleaned === "") throw new Error("The glob pattern is empty");
  const byName = !cleaned.includes("/");
  let regex: { test(input: string): boolean };
  try {
    regex = compileRe2(`^${translate(cleaned)}$`);
  } catch (error) {
    throw new Error(`The glob ${pattern} is not valid: ${(error as Error).message}`);
  }
  return {
    test(relativePath: string): boolean {
      const path = byName ? relativePath.slice(relativePath.lastIndexOf("/") + 1) : relativePath;
      return regex.test(path);
    },
  };
}
