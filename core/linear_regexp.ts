/**
 * Regular expressions that run in time linear in their input: RE2 syntax through `re2js`,
 * for every pattern a model, a plugin or a schema supplies.
 *
 * @module
 */

import { RE2JS } from "re2js";
import { thrownText } from "./thrown_text.ts";

/**
 * The largest compiled program accepted (RE2 instructions). Matching costs at most about
 * this many steps per input character, so it bounds the time a pattern can take on a
 * given input; ordinary patterns compile to a few dozen.
 */
const MAX_LINEAR_PROGRAM_SIZE = 2000;

/**
 * The longest pattern accepted, in UTF-16 code units. RE2 only knows a program's size once it
 * has built it, in time that grows with the pattern's length (~2.3 s for a million
 * characters here), so a longer pattern is refused before it is parsed. Long patterns that
 * do compile small (a list of words, a long character class) stay well under this.
 */
const MAX_LINEAR_PATTERN_LENGTH = 32_768;

function re2Flags(flags: string): number {
  let out = 0;
  if (flags.includes("i")) out |= RE2JS.CASE_INSENSITIVE;
  if (flags.includes("s")) out |= RE2JS.DOTALL;
  if (flags.includes("m")) out |= RE2JS.MULTILINE;
  return out;
}

/**
 * Compiles a pattern with the linear-time engine. JavaScript spellings that RE2 lacks
 * (`(?<name>…)`, `\u{…}`, `[^]`, `\cJ`) are translated first; backreferences and
 * lookaround are refused, since no linear-time engine can run them.
 *
 * @param source The pattern, in RE2 or JavaScript syntax.
 * @param flags `i`, `s` and `m` as in JavaScript; `g`, `y`, `u`, `v`, `d` are ignored.
 * @returns The compiled pattern.
 * @throws {SyntaxError} When the pattern is not valid RE2 syntax (`invalid or unsupported
 * Perl syntax: \`(?=\``), is longer than {@linkcode MAX_LINEAR_PATTERN_LENGTH} or compiles to
 * more than {@linkcode MAX_LINEAR_PROGRAM_SIZE} instructions, with a message saying which.
 */
export function compileRe2(source: string, flags = ""): RE2JS {
  if (source.length > MAX_LINEAR_PATTERN_LENGTH) {
    throw new SyntaxError(
      `the pattern is too long: it has ${source.length} characters, over the limit of ` +
        `${MAX_LINEAR_PATTERN_LENGTH}`,
    );
  }
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(RE2JS.translateRegExp(source), re2Flags(flags));
  } catch (error) {
    const why = thrownText(error);
    throw new SyntaxError(why.replace(/^error parsing regexp: /, ""));
  }
  if (compiled.programSize() > MAX_LINEAR_PROGRAM_SIZE) {
    throw new SyntaxError(
      `the pattern is too large: it compiles to ${compiled.programSize()} instructions, ` +
        `over the limit of ${MAX_LINEAR_PROGRAM_SIZE}`,
    );
  }
  return compiled;
}

/**
 * A `RegExp` whose `test` and `exec` run on the linear-time RE2 engine instead of V8's
 * backtracking one, so a catastrophic pattern such as `(a+)+$` cannot stall the event loop.
 * It is a real `RegExp` (its `source` and `flags` read as usual), so it can stand where a
 * `RegExp` is expected; the pattern must be valid in both syntaxes. `test` and `exec`
 * ignore `lastIndex` (every call searches the whole input).
 *
 * @example A catastrophic pattern answers at once
 * ```ts
 * import { LinearRegExp } from "./linear_regexp.ts";
 * import { equal } from "node:assert/strict";
 *
 * const regex = new LinearRegExp("(a+)+$");
 * equal(regex.test("a".repeat(100_000) + "b"), false);
 * equal(new LinearRegExp("^ab", "i").test("ABc"), true);
 * ```
 */
export class LinearRegExp extends RegExp {
  readonly #re2: RE2JS;

  /**
   * @param source The pattern.
   * @param flags JavaScript flags (`i`, `s`, `m` change matching).
   * @throws {SyntaxError} When V8 or RE2 rejects the pattern (backreferences, lookaround),
   * or it is too large.
   */
  constructor(source: string, flags = "") {
    super(source, flags.replace(/[gy]/g, ""));
    this.#re2 = compileRe2(source, flags);
  }

  /** Whether the pattern matches somewhere in `input` (linear time). */
  override test(input: string): boolean {
    return this.#re2.test(String(input));
  }

  /** The first match in `input`, shaped like `RegExp.prototype.exec`'s (linear time). */
  override exec(input: string): RegExpExecArray | null {
    return this.#re2.exec(String(input)) as RegExpExecArray | null;
  }
}
