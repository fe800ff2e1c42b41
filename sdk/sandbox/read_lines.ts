/**
 * Splits a byte stream into lines, in time linear in the bytes received: newlines are
 * found in the bytes of each chunk (never by rescanning what came before), and a line
 * longer than a limit is never held whole.
 *
 * @module
 */

/** What happens to a line longer than the limit. */
export type LongLine =
  /** Keep its first `maxLineBytes` bytes, drop the rest up to its newline. */
  | "cut"
  /** Stop reading at once (the caller ends the stream's producer). */
  | "stop";

/** How {@linkcode readLines} bounds lines. */
export interface ReadLinesOptions {
  /** The most bytes of one line that are kept. */
  maxLineBytes: number;
  /** What to do with a longer line. */
  long: LongLine;
  /** With `long: "stop"`, called once when a line passes the limit. */
  onTooLong?: () => void;
}

function join(parts: Uint8Array[], size: number): Uint8Array {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/**
 * Reads a stream to its end, handing each line (without its newline) to `onLine`.
 *
 * @param stream The bytes.
 * @param onLine Receives each line's bytes, and how many bytes were cut from its end.
 * @param options The limit, and what to do past it.
 * @returns When the stream ends (or, with `long: "stop"`, when a line passes the limit).
 *
 * @example Two lines, one cut
 * ```ts
 * import { readLines } from "./read_lines.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * const lines: string[] = [];
 * const stream = ReadableStream.from([new TextEncoder().encode("ab\nabcdef\n")]);
 * await readLines(stream, (line, cut) => lines.push(`${new TextDecoder().decode(line)}+${cut}`), {
 *   maxLineBytes: 4,
 *   long: "cut",
 * });
 * deepEqual(lines, ["ab+0", "abcd+2"]);
 * ```
 */
export async function readLines(
  stream: ReadableStream<Uint8Array>,
  onLine: (line: Uint8Array, cutBytes: number) => void,
  options: ReadLinesOptions,
): Promise<void> {
  const { maxLineBytes } = options;
  let parts: Uint8Array[] = [];
  let size = 0;
  let cut = 0;
  const reader = stream.getReader();
  try {
    while (true) {
      const { value: chunk, done } = await reader.read();
      if (done) break;
      let start = 0;
      while (start < chunk.length) {
        const newline = chunk.indexOf(10, start);
        const end = newline < 0 ? chunk.length : newline;
        const room = maxLineBytes - size;
        if (end - start > room) {
          if (options.long === "stop") {
            options.onTooLong?.();
            await reader.cancel().catch(() => {});
            return;
          }
          if (room > 0) parts.push(chunk.subarray(start, start + room));
          size = maxLineBytes;
          cut += end - start - room;
        } else if (end > start) {
          parts.push(chunk.subarray(start, end));
          size += end - start;
        }
        if (newline < 0) break;
        onLine(join(parts, size), cut);
        parts = [];
        size = 0;
        cut = 0;
        start = newline + 1;
      }
      // Bytes kept past this chunk must not alias the reader's buffer.
      if (parts.length > 0 && parts[parts.length - 1].buffer === chunk.buffer) {
        parts[parts.length - 1] = parts[parts.length - 1].slice();
      }
    }
    if (size > 0 || cut > 0) onLine(join(parts, size), cut);
  } finally {
    reader.releaseLock();
  }
}
