/**
 * Keeps audit lines bounded: long strings inside arguments are cut.
 *
 * @module
 */

/**
 * Copies a JSON value with every string longer than `max` characters cut to `max`, noting
 * how much was cut (`…[+N chars]`).
 *
 * @param value A JSON value.
 * @param max The longest string kept whole.
 * @returns The copy (the value itself when nothing needed cutting).
 *
 * @example
 * ```ts
 * import { truncateStrings } from "@tack/agent/plugins/audit";
 * import { deepEqual } from "node:assert/strict";
 *
 * deepEqual(truncateStrings({ content: "abcdef" }, 3), { content: "abc…[+3 chars]" });
 * ```
 */
export function truncateStrings(value: unknown, max: number): unknown {
  if (typeof value === "string") {
    return value.length > max ? `${value.slice(0, max)}…[+${value.length - max} chars]` : value;
  }
  if (Array.isArray(value)) return value.map((item) => truncateStrings(item, max));
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = truncateStrings(item, max);
    return out;
  }
  return value;
}
