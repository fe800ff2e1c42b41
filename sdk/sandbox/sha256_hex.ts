/**
 * The SHA-256 of a text, in hex: the sandbox's cache keys and fingerprints.
 *
 * @module
 */

/**
 * The SHA-256 of `text` (UTF-8) or of bytes, as 64 hex digits.
 *
 * @param text Any text, or bytes.
 * @returns Its digest in lowercase hex.
 *
 * @example The digest of the empty text
 * ```ts
 * import { sha256Hex } from "./sha256_hex.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(await sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
 * ```
 */
export async function sha256Hex(text: string | Uint8Array): Promise<string> {
  const bytes = typeof text === "string" ? new TextEncoder().encode(text) : text;
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("");
}
