/**
 * JSON with sorted keys: equal values give equal text.
 *
 * @module
 */

function sortKeys(value: unknown, ancestors: unknown[]): unknown {
  if (typeof value === "object" && value !== null) {
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === "function") return sortKeys(toJSON.call(value), ancestors);
    if (ancestors.includes(value)) {
      throw new TypeError("Cannot serialize to canonical JSON: the value contains a cycle");
    }
    ancestors.push(value);
    let out: unknown;
    if (Array.isArray(value)) out = value.map((item) => sortKeys(item, ancestors));
    else {
      const sorted: Record<string, unknown> = {};
      for (const key of Object.keys(value).sort()) {
        sorted[key] = sortKeys((value as Record<string, unknown>)[key], ancestors);
      }
      out = sorted;
    }
    ancestors.pop();
    return out;
  }
  return value;
}

/**
 * Serializes a JSON value with object keys sorted at every level, so two values that are
 * equal as JSON give the same text whatever order their keys were written in (for
 * comparing or hashing tool arguments). Everything else is as `JSON.stringify` does it
 * (`toJSON` is honoured, `undefined` properties are dropped); a top-level `undefined`
 * gives `"undefined"`.
 *
 * @param value A JSON value.
 * @returns The canonical text.
 * @throws {TypeError} When `value` contains a cycle
 * (`Cannot serialize to canonical JSON: the value contains a cycle`) or a `bigint`.
 *
 * @example Key order does not matter
 * ```ts
 * import { canonicalJson } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * equal(canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] }), '{"a":[{"c":3,"d":2}],"b":1}');
 * equal(canonicalJson({ a: 1, b: 2 }), canonicalJson({ b: 2, a: 1 }));
 * ```
 *
 * @example A cycle is refused, not followed
 * ```ts
 * import { canonicalJson } from "@tack/agent";
 * import { throws } from "node:assert/strict";
 *
 * const cyclic: Record<string, unknown> = {};
 * cyclic.self = cyclic;
 * throws(() => canonicalJson(cyclic), {
 *   name: "TypeError",
 *   message: "Cannot serialize to canonical JSON: the value contains a cycle",
 * });
 * ```
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value, [])) ?? "undefined";
}
