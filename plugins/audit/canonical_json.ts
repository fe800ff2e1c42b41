/**
 * JSON with sorted keys: equal values give equal text.
 *
 * @module
 */

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      out[key] = sortKeys((value as Record<string, unknown>)[key]);
    }
    return out;
  }
  return value;
}

/**
 * Serializes a JSON value with object keys sorted at every level, so two values that are
 * equal as JSON give the same text whatever order their keys were written in.
 *
 * @param value A JSON value.
 * @returns The canonical text.
 *
 * @example Key order does not matter
 * ```ts
 * import { canonicalJson } from "@tack/agent/plugins/audit";
 * import { equal } from "node:assert/strict";
 *
 * equal(canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] }), '{"a":[{"c":3,"d":2}],"b":1}');
 * ```
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? "undefined";
}
