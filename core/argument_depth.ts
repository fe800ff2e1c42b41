/**
 * How deeply tool-call arguments may nest. Arguments come from the model (or a server
 * posing as one): 2,000,000 levels of `[` fit in 4 MB, and checking and quoting them
 * held the host's event loop for ~9 s.
 *
 * @module
 */

/** The deepest arguments may nest, in objects and arrays (serde_json's default too). */
export const MAX_ARGUMENT_DEPTH = 128;

/**
 * Why arguments nest too deeply, or `undefined` when they do not. It allocates nothing (a
 * walk with an array of its own cost ~125 ns for a small object) and its recursion stops at
 * the limit.
 *
 * @param value The arguments.
 * @returns `they nest more than 128 levels deep`, or `undefined`.
 *
 * @example
 * ```ts
 * import { argumentDepthProblem } from "./argument_depth.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(argumentDepthProblem({ a: [1, { b: 2 }] }), undefined);
 * equal(
 *   argumentDepthProblem(JSON.parse("[".repeat(200) + "]".repeat(200))),
 *   "they nest more than 128 levels deep",
 * );
 * ```
 */
export function argumentDepthProblem(value: unknown): string | undefined {
  return nestsDeeper(value, MAX_ARGUMENT_DEPTH)
    ? `they nest more than ${MAX_ARGUMENT_DEPTH} levels deep`
    : undefined;
}

/** Whether objects and arrays nest in `value` more than `levels` deep (recursion stops at `levels`). */
function nestsDeeper(value: unknown, levels: number): boolean {
  if (typeof value !== "object" || value === null) return false;
  if (levels === 0) return true;
  if (Array.isArray(value)) {
    // An index loop: `for…in` over an array costs ~5× more (~350 ns for two strings).
    for (let i = 0; i < value.length; i++) if (nestsDeeper(value[i], levels - 1)) return true;
    return false;
  }
  for (const key in value) {
    if (nestsDeeper((value as Record<string, unknown>)[key], levels - 1)) return true;
  }
  return false;
}
