/**
 * The size of tools' parameter schemas, bounded before they are compiled when they come
 * from code Tack does not trust.
 *
 * @module
 */

import { REF_KEYWORDS } from "./schema_recursion.ts";

/**
 * How big the schemas of code Tack does not trust (a sandboxed plugin's, an MCP server's)
 * may be. They are compiled in the host, and some cost far more than their size (a `$ref`
 * chain doubling at each level takes twice as long per level: 40 levels, 3 minutes; a
 * pattern near the size limit ~3 ms, a long one ~2.3 ms per thousand characters). Within
 * these the check takes well under a second.
 * Real tools stay far below them.
 */
export const SCHEMA_LIMITS: Readonly<{
  /** JSON values (objects, arrays, strings, numbers, booleans, nulls) in all tools' `parameters` together. */
  schemaValues: number;
  /** How deep one tool's `parameters` nest, in objects and arrays. */
  schemaDepth: number;
  /** `pattern`s and `patternProperties` keys in all tools' `parameters`. */
  patterns: number;
  /** Characters in those patterns together. */
  patternChars: number;
  /** `$ref`s (and `$dynamicRef`s, `$recursiveRef`s) in one tool's `parameters`. */
  refsPerTool: number;
}> = Object.freeze({
  schemaValues: 20_000,
  schemaDepth: 64,
  patterns: 256,
  patternChars: 100_000,
  refsPerTool: 32,
});

const REF_KEYS = new Set<string>(REF_KEYWORDS);

/**
 * What schemas checked so far have used of {@linkcode SCHEMA_LIMITS}' totals, so that tools
 * checked one at a time (an MCP server's listing) are held to them together.
 *
 * @example Two tools checked one after the other
 * ```ts
 * import { newSchemaTally, schemaSizeProblem } from "./schema_size.ts";
 * import { equal } from "node:assert/strict";
 *
 * const tally = newSchemaTally();
 * const tool = (name: string) => ({ name, parameters: { type: "string", pattern: "a".repeat(60_000) } });
 * equal(schemaSizeProblem([tool("first")], tally), undefined);
 * equal(
 *   schemaSizeProblem([tool("second")], tally),
 *   "its tools' parameter schemas hold patterns of more than 100000 characters together",
 * );
 * ```
 */
export interface SchemaTally {
  /** JSON values. */
  values: number;
  /** `pattern`s and `patternProperties` keys. */
  patterns: number;
  /** Characters in those patterns. */
  patternChars: number;
}

/**
 * A tally with nothing counted yet.
 *
 * @returns A fresh tally.
 *
 * @example
 * ```ts
 * import { newSchemaTally } from "./schema_size.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * deepEqual(newSchemaTally(), { values: 0, patterns: 0, patternChars: 0 });
 * ```
 */
export function newSchemaTally(): SchemaTally {
  return { values: 0, patterns: 0, patternChars: 0 };
}

/**
 * Why tools' schemas are too big to check, if they are ({@linkcode SCHEMA_LIMITS}, values
 * and patterns counted over all of them together, and over those counted in `tally`
 * before): a walk of the JSON (no recursion, so nesting cannot overflow the stack) that
 * stops at the first limit passed.
 *
 * @param tools Tools with a name and `parameters` (any value).
 * @param tally What schemas checked before used; the tools' counts are added to it when they
 * are within the limits (a refused schema is not compiled, so it uses nothing).
 * @returns The problem, or `undefined`.
 *
 * @example A schema nested too deep
 * ```ts
 * import { schemaSizeProblem } from "./schema_size.ts";
 * import { equal } from "node:assert/strict";
 *
 * let parameters: unknown = { type: "string" };
 * for (let i = 0; i < 100; i++) parameters = { type: "array", items: parameters };
 * equal(
 *   schemaSizeProblem([{ name: "deep", parameters }]),
 *   'its tool "deep" has a parameter schema nested more than 64 levels deep',
 * );
 * equal(schemaSizeProblem([{ name: "flat", parameters: { type: "object" } }]), undefined);
 * ```
 */
export function schemaSizeProblem(
  tools: readonly { name: string; parameters: unknown }[],
  tally: SchemaTally = newSchemaTally(),
): string | undefined {
  const limits = SCHEMA_LIMITS;
  let { values, patterns, patternChars } = tally;
  for (const tool of tools) {
    let refs = 0;
    const stack: [unknown, number][] = [[tool.parameters, 1]];
    values++;
    while (stack.length > 0) {
      const [value, depth] = stack.pop()!;
      if (typeof value !== "object" || value === null) continue;
      if (depth > limits.schemaDepth) {
        return `its tool "${tool.name}" has a parameter schema nested more than ${limits.schemaDepth} levels deep`;
      }
      const array = Array.isArray(value);
      for (const key of array ? value.keys() : Object.keys(value)) {
        const item = (value as Record<string | number, unknown>)[key];
        if (++values > limits.schemaValues) {
          return `its tools' parameter schemas hold more than ${limits.schemaValues} JSON values together`;
        }
        if (!array && typeof item === "string") {
          if (key === "pattern") {
            patterns++;
            patternChars += item.length;
          } else if (REF_KEYS.has(key as string)) refs++;
        } else if (key === "patternProperties" && typeof item === "object" && item !== null) {
          for (const pattern of Object.keys(item)) {
            patterns++;
            patternChars += pattern.length;
          }
        }
        stack.push([item, depth + 1]);
      }
      if (patterns > limits.patterns) {
        return `its tools' parameter schemas hold more than ${limits.patterns} patterns together`;
      }
      if (patternChars > limits.patternChars) {
        return `its tools' parameter schemas hold patterns of more than ${limits.patternChars} characters together`;
      }
      if (refs > limits.refsPerTool) {
        return `its tool "${tool.name}" has a parameter schema with more than ${limits.refsPerTool} $refs`;
      }
    }
  }
  Object.assign(tally, { values, patterns, patternChars });
  return undefined;
}
