/**
 * Keeps audit lines bounded whatever the arguments look like: long strings are cut,
 * deep nesting and large objects are elided, cycles are named, nothing throws.
 *
 * @module
 */

import { wholeCharacters } from "../../sdk/whole_characters.ts";

/** Nesting kept in the log; deeper values are replaced by a note. */
const MAX_DEPTH = 32;
/** Array items and object keys kept per value. */
const MAX_ENTRIES = 200;
/** Characters of an object key kept. */
const MAX_KEY_CHARS = 256;

function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = wholeCharacters(text, max);
  return `${text.slice(0, end)}…[+${text.length - end} chars]`;
}

/**
 * A name for `key` in `out` that no earlier key took: two keys the same once cut (or a
 * key named like the note) would otherwise keep one value, and the log would lose the other.
 */
function freeName(out: Record<string, unknown>, key: string): string {
  let name = key;
  for (let n = 2; Object.hasOwn(out, name); n++) name = `${key} [#${n}]`;
  return name;
}

function copy(value: unknown, max: number, depth: number, seen: Set<object>): unknown {
  if (typeof value === "string") return cut(value, max);
  if (value === null || typeof value === "number" || typeof value === "boolean") return value;
  if (typeof value !== "object") {
    return value === undefined ? null : cut(`[${typeof value}: ${String(value)}]`, max);
  }
  if (seen.has(value)) return "[circular]";
  if (depth >= MAX_DEPTH) return `[nested deeper than ${MAX_DEPTH} levels]`;
  seen.add(value);
  try {
    if (Array.isArray(value)) {
      const out = value.slice(0, MAX_ENTRIES).map((item) => copy(item, max, depth + 1, seen));
      if (value.length > MAX_ENTRIES) out.push(`[+${value.length - MAX_ENTRIES} items]`);
      return out;
    }
    const out: Record<string, unknown> = {};
    const keys = Object.keys(value);
    for (const key of keys.slice(0, MAX_ENTRIES)) {
      out[freeName(out, cut(key, MAX_KEY_CHARS))] = copy(
        (value as Record<string, unknown>)[key],
        max,
        depth + 1,
        seen,
      );
    }
    if (keys.length > MAX_ENTRIES) {
      out[freeName(out, "…")] = `[+${keys.length - MAX_ENTRIES} keys]`;
    }
    return out;
  } finally {
    seen.delete(value);
  }
}

/**
 * Copies a value for the log: every string longer than `max` characters is cut to `max`
 * (one fewer where the cut would split a surrogate pair), noting how much was cut
 * (`…[+N chars]`); keys are cut at 256 characters (a key the same as an earlier one once cut
 * gets ` [#2]`, ` [#3]`, …, so no value is lost); nesting past 32
 * levels, more than 200 items or keys, and cycles are replaced by notes; non-JSON values become text. Whatever
 * the shape of a JSON value (5,000 levels deep, huge, cyclic once parsed and patched), it
 * does not throw.
 *
 * @param value Any value, usually a call's arguments.
 * @param max The longest string kept whole.
 * @returns A JSON-serializable copy.
 *
 * @example
 * ```ts
 * import { truncateStrings } from "@tack/agent/plugins/audit";
 * import { deepEqual } from "node:assert/strict";
 *
 * deepEqual(truncateStrings({ content: "abcdef" }, 3), { content: "abc…[+3 chars]" });
 * const cyclic: Record<string, unknown> = {};
 * cyclic.self = cyclic;
 * deepEqual(truncateStrings(cyclic, 3), { self: "[circular]" });
 * ```
 */
export function truncateStrings(value: unknown, max: number): unknown {
  return copy(value, max, 0, new Set());
}
