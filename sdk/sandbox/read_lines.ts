/**
 * Splits bytes into lines, in time linear in the bytes received: newlines are found in
 * the bytes of each chunk (never by rescanning what came before), and a line longer than
 * a limit is never held whole.
 *
 * @module
 */

import { joinBytes } from "../join_bytes.ts";

/** What happens to a line longer than the limit. */
export type LongLine =
  /** Keep its first `maxLineBytes` bytes, drop the rest up to its newline. */
  | "cut"
  /** Stop reading at once (the caller ends the stream's producer). */
  | "stop";

/** How lines are bounded. */
export interface ReadLinesOptions {
  /** The most bytes of one line that are kept. */
  maxLineBytes: number;
  /** What to do with a longer line. */
  long: LongLine;
  /** With `long: "stop"`, called once when a line passes the limit. */
  onTooLong?: () => void;
  /**
   * Asked by `readLines` after each chunk: a promise to wait for before reading on (the
   * stream's writer waits meanwhile, once its pipe is full), or `undefined`.
   */
  pause?: () => Promise<void> | undefined;
  /**
   * Once this settles, reading stops as if the stream had ended: for a pipe that a process
   * the reader no longer waits for may hold open.
   */
  stop?: Promise<unknown>;
}

// Empty lines share one empty array (a new one costs an ArrayBuffer each).
const EMPTY = new Uint8Array(0);

function join(parts: Uint8Array[], size: number): Uint8Array {
  return size === 0 ? EMPTY : joinBytes(parts, size);
}

/**
 * A line splitter fed chunk by chunk (for sources that are not streams, such as
 * `Deno.stdin.read` into a reused buffer: a partial line is copied out of the chunk).
 *
 * @param onLine Receives each line's bytes (without the newline; valid only during the
 * call) and how many bytes were cut from its end.
 * @param options The limit, and what to do past it.
 * @returns `push(chunk)`, `false` once a line passed a `"stop"` limit; and `end()`.
 *
 * @example Two chunks, one line
 * ```ts
 * import { lineSplitter } from "./read_lines.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * const lines: string[] = [];
 * const split = lineSplitter((line) => lines.push(new TextDecoder().decode(line)), {
 *   maxLineBytes: 100,
 *   long: "cut",
 * });
 * split.push(new TextEncoder().encode("hel"));
 * split.push(new TextEncoder().encode("lo\nwor"));
 * split.end();
 * deepEqual(lines, ["hello", "wor"]);
 * ```
 */
export function lineSplitter(
  onLine: (line: Uint8Array, cutBytes: number) => void,
  options: ReadLinesOptions,
): { push(chunk: Uint8Array): boolean; end(): void } {
  const { maxLineBytes } = options;
  let parts: Uint8Array[] = [];
  let size = 0;
  let cut = 0;
  return {
    push(chunk) {
      let start = 0;
      while (start < chunk.length) {
        const newline = chunk.indexOf(10, start);
        const end = newline < 0 ? chunk.length : newline;
        const room = maxLineBytes - size;
        if (end - start > room) {
          if (options.long === "stop") {
            options.onTooLong?.();
            return false;
          }
          if (room > 0) parts.push(chunk.slice(start, start + room));
          size = maxLineBytes;
          cut += end - start - room;
        } else if (end > start) {
          // The last piece of a line may stay in the chunk: others are copied out.
          parts.push(newline < 0 ? chunk.slice(start, end) : chunk.subarray(start, end));
          size += end - start;
        }
        if (newline < 0) break;
        onLine(join(parts, size), cut);
        parts = [];
        size = 0;
        cut = 0;
        start = newline + 1;
      }
      return true;
    },
    end() {
      if (size > 0 || cut > 0) onLine(join(parts, size), cut);
      parts = [];
      size = 0;
      cut = 0;
    },
  };
}

/**
 * Reads a stream to its end, handing each line (without its newline) to `onLine`.
 *
 * @param stream The bytes.
 * @param onLine Receives each line's bytes, and how many bytes were cut from its end. The
 * bytes stay valid after the call (a stream's chunks are not reused), so they may be kept.
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
  const split = lineSplitter(onLine, options);
  const reader = stream.getReader();
  // A reader released by then (the stream ended first) refuses the cancel: nothing to stop.
  options.stop?.finally(() => reader.cancel().catch(() => {}));
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      if (!split.push(value)) {
        await reader.cancel().catch(() => {});
        return;
      }
      const paused = options.pause?.();
      if (paused !== undefined) await paused;
    }
    split.end();
  } finally {
    reader.releaseLock();
  }
}
