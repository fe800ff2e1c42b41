/**
 * The check that a tool's `effects` are an array of known effects, shared by every way a
 * tool reaches the loop (registration, `setTools`, a `prepareTurn` hook's choice), since
 * the policies (`readOnly`, `confirm`, `rules`) decide by them.
 *
 * @module
 */

/** The effects a tool may declare (`ToolEffect`). */
const KNOWN_EFFECTS: ReadonlySet<unknown> = new Set(["read", "write", "exec", "net"]);

/**
 * Why a tool's `effects` are not an array of known effects, or `undefined` when they are
 * (or absent).
 *
 * @param effects A tool's `effects`.
 * @returns The reason, or `undefined`.
 *
 * @example A misspelt effect
 * ```ts
 * import { invalidEffectsReason } from "./invalid_effects.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(invalidEffectsReason(["read"]), undefined);
 * equal(invalidEffectsReason(["Write"]), '"Write" is not one of read, write, exec, net');
 * equal(invalidEffectsReason("write"), "they are string, not an array");
 * ```
 */
export function invalidEffectsReason(effects: unknown): string | undefined {
  if (effects === undefined) return undefined;
  if (!Array.isArray(effects)) return `they are ${typeof effects}, not an array`;
  const at = effects.findIndex((effect) => !KNOWN_EFFECTS.has(effect));
  if (at === -1) return undefined;
  const unknown: unknown = effects[at];
  return `${JSON.stringify(unknown) ?? String(unknown)} is not one of ${
    [...KNOWN_EFFECTS].join(", ")
  }`;
}
