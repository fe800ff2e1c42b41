/**
 * The fingerprint an approval is bound to.
 *
 * @module
 */

import { canonicalJson } from "./canonical_json.ts";

const encoder = new TextEncoder();

/**
 * SHA-256 (hex) of a call's arguments in canonical JSON (keys sorted), so the same
 * arguments always give the same hash and any change to a value gives another.
 *
 * @param args The arguments.
 * @returns 64 hex digits.
 *
 * @example Key order does not change the hash
 * ```ts
 * import { hashArguments } from "@tack/agent";
 * import { equal, notEqual } from "node:assert/strict";
 *
 * equal(await hashArguments({ a: 1, b: 2 }), await hashArguments({ b: 2, a: 1 }));
 * notEqual(await hashArguments({ a: 1 }), await hashArguments({ a: 2 }));
 * ```
 */
export async function hashArguments(args: Record<string, unknown>): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", encoder.encode(canonicalJson(args)));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("");
}
