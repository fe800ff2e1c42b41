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
 * Why arguments nest too deeply, or `undefined` when they do not. A walk without
 * recursion that stops as soon as it passes the limit.
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
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (typeof item !== "object" || item === null) continue;
    if (depth > MAX_ARGUMENT_DEPTH) {
      return `they nest more than ${MAX_ARGUMENT_DEPTH} levels deep`;
    }
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return undefined;
}
