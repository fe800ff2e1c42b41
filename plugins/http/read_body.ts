/**
 * Reading a response body up to a byte cap, without downloading the rest.
 *
 * @module
 */

/** A body read up to the cap. */
export interface CappedBody {
  /** The bytes read (at most the cap). */
  bytes: Uint8Array;
  /** Whether the body went on past the cap (the rest was not downloaded). */
  truncated: boolean;
}

/**
 * Reads a response's body, stopping at `maxBytes`: the stream is cancelled there, so an
 * endless or huge body costs no more than the cap.
 *
 * @param response The response (its body is consumed).
 * @param maxBytes The cap.
 * @returns The bytes and whether the body was cut.
 *
 * @example Cutting a long body
 * ```ts
 * import { readCappedBody } from "@tack/agent/plugins/http";
 * import { equal } from "node:assert/strict";
 *
 * const { bytes, truncated } = await readCappedBody(new Response("x".repeat(100)), 10);
 * equal(bytes.length, 10);
 * equal(truncated, true);
 * ```
 */
export async function readCappedBody(response: Response, maxBytes: number): Promise<CappedBody> {
  if (!response.body) return { bytes: new Uint8Array(0), truncated: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      if (size + value.length > maxBytes) {
        chunks.push(value.subarray(0, maxBytes - size));
        size = maxBytes;
        truncated = true;
        break;
      }
      chunks.push(value);
      size += value.length;
    }
  } finally {
    if (truncated) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return { bytes, truncated };
}
