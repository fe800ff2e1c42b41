/**
 * Which image format a body's bytes are, by their signature: `fetch_url` sends image
 * content only of bytes that are the format it names, whatever `content-type` claimed.
 *
 * @module
 */

/** The leading bytes of each format (`undefined` matches any byte). */
const SIGNATURES: [string, (number | undefined)[]][] = [
  ["image/png", [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]],
  ["image/jpeg", [0xff, 0xd8, 0xff]],
  ["image/gif", [0x47, 0x49, 0x46, 0x38, undefined, 0x61]], // GIF87a, GIF89a
  [
    "image/webp",
    [0x52, 0x49, 0x46, 0x46, undefined, undefined, undefined, undefined, 0x57, 0x45, 0x42, 0x50],
  ],
];

/**
 * The media type of the PNG, JPEG, GIF or WebP image a body starts as, or `undefined`.
 *
 * @param bytes The body.
 * @returns `"image/png"`, `"image/jpeg"`, `"image/gif"`, `"image/webp"` or `undefined`.
 *
 * @example
 * ```ts
 * import { imageTypeOf } from "./image_type.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(imageTypeOf(new TextEncoder().encode("GIF89a...")), "image/gif");
 * equal(imageTypeOf(new TextEncoder().encode("<html>")), undefined);
 * ```
 */
export function imageTypeOf(bytes: Uint8Array): string | undefined {
  return SIGNATURES.find(([, signature]) =>
    bytes.length >= signature.length &&
    signature.every((byte, i) => byte === undefined || bytes[i] === byte)
  )?.[0];
}
