/**
 * A capped output buffer: keeps the head and the tail of a stream of text, and counts
 * what it dropped from the middle.
 *
 * @module
 */

/** What {@linkcode createOutputBuffer} returns. */
export interface OutputBuffer {
  /** Adds text at the end. */
  append(text: string): void;
  /** The kept text: everything if it fits, else head, an elision note, tail. */
  text(): string;
  /** Characters appended so far. */
  readonly totalChars: number;
  /** Characters dropped from the middle so far. */
  readonly elidedChars: number;
}

/**
 * Creates a buffer that keeps at most `maxChars` characters of output: the first half
 * and the last half. Memory stays bounded however much is appended.
 *
 * @param maxChars Characters to keep (at least 2).
 * @returns The buffer.
 * @throws {RangeError} When `maxChars` is below 2.
 *
 * @example Keeping head and tail
 * ```ts
 * import { createOutputBuffer } from "@tack/agent/plugins/shell";
 * import { equal } from "node:assert/strict";
 *
 * const buffer = createOutputBuffer(4);
 * buffer.append("abcdefgh");
 * equal(buffer.text(), "ab\n[… 4 characters elided …]\ngh");
 * ```
 */
export function createOutputBuffer(maxChars: number): OutputBuffer {
  if (!(maxChars >= 2)) {
    throw new RangeError(
      `Cannot create output buffer: maxChars must be at least 2, got ${maxChars}`,
    );
  }
  const headMax = Math.floor(maxChars / 2);
  const tailMax = maxChars - headMax;
  let head = "";
  let tail = "";
  let total = 0;
  return {
    append(text: string): void {
      total += text.length;
      if (head.length < headMax) {
        const room = headMax - head.length;
        head += text.slice(0, room);
        text = text.slice(room);
      }
      if (text.length > 0) {
        tail = text.length >= tailMax ? text.slice(-tailMax) : (tail + text).slice(-tailMax);
      }
    },
    text(): string {
      const elided = total - head.length - tail.length;
      return elided > 0 ? `${head}\n[… ${elided} characters elided …]\n${tail}` : head + tail;
    },
    get totalChars() {
      return total;
    },
    get elidedChars() {
      return total - head.length - tail.length;
    },
  };
}
