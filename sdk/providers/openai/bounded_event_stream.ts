/**
 * Bounds the bytes of an event-stream body before the `openai` client reads it: the
 * client buffers an event until its blank line, however long, and reads a stream until it
 * ends, however much of it counts for nothing (empty deltas, `: ping` comments).
 *
 * @module
 */

import { ResponseTooLargeError } from "./response_limits.ts";

const NEWLINE = 10;
const RETURN = 13;

/** The errors reading a body failed with (a connection cut mid-stream). */
const readFailures = new WeakSet<object>();

/**
 * Whether `error` is what reading an event-stream body through
 * {@linkcode boundEventStream} failed with: the connection broke. Other `TypeError`s met
 * while streaming come from a chunk of an unexpected shape (`"choices": [null]`), which
 * a retry would not mend.
 *
 * @param error What a stream failed with.
 * @returns `true` for a failed read of the body.
 *
 * @example
 * ```ts
 * import { boundEventStream, isBodyReadFailure } from "@tack/agent/sdk/providers/openai";
 * import { equal } from "node:assert/strict";
 *
 * const broken = new ReadableStream<Uint8Array>({
 *   pull() {
 *     throw new TypeError("error reading a body from connection");
 *   },
 * });
 * const bounded = boundEventStream(broken, { maxBytes: 100, maxEventBytes: 10 });
 * const failure = await bounded.getReader().read().catch((error) => error);
 * equal(isBodyReadFailure(failure), true);
 * equal(isBodyReadFailure(new TypeError("Cannot read properties of null")), false);
 * ```
 */
export function isBodyReadFailure(error: unknown): boolean {
  return typeof error === "object" && error !== null && readFailures.has(error);
}

/** The byte bounds of one event-stream body. */
export interface EventStreamBounds {
  /** Bytes of the whole body. */
  readonly maxBytes: number;
  /** Bytes of one event: a line, or `data:` lines up to the blank line that ends them. */
  readonly maxEventBytes: number;
}

/**
 * Wraps an event-stream body so that it errors with {@linkcode ResponseTooLargeError}
 * once the body passes `maxBytes` (`maxResponseBytes`), or one event passes
 * `maxEventBytes` (`maxEventBytes`) without the blank line that ends it (`\n\n`,
 * `\r\r`, `\r\n\r\n`, as the client splits events). The chunk that passes a limit is not
 * passed on, and the body it came from is cancelled.
 *
 * @param body The response's body.
 * @param bounds The limits.
 * @returns The bounded body.
 *
 * @example A line that never ends
 * ```ts
 * import { boundEventStream } from "./bounded_event_stream.ts";
 * import { rejects } from "node:assert/strict";
 *
 * const line = new Response("data: " + "x".repeat(100)).body!;
 * const bounded = boundEventStream(line, { maxBytes: 1_000, maxEventBytes: 50 });
 * await rejects(new Response(bounded).text(), {
 *   message: "one event of the stream passed 50 bytes without ending (maxEventBytes); " +
 *     "the rest was not read",
 * });
 * ```
 */
export function boundEventStream(
  body: ReadableStream<Uint8Array>,
  bounds: EventStreamBounds,
): ReadableStream<Uint8Array> {
  const { maxBytes, maxEventBytes } = bounds;
  const reader = body.getReader();
  let total = 0;
  /** Bytes of the event not yet ended. */
  let open = 0;
  /** The two bytes before the chunk, to see a blank line cut between chunks. */
  let before1 = 0;
  let before2 = 0;
  /** The size of the longest event the chunk holds or ends (`open` updated for the next). */
  const measure = (chunk: Uint8Array): number => {
    const at = (i: number) => i >= 0 ? chunk[i] : i === -1 ? before1 : before2;
    let start = 0; // where the open event starts in this chunk
    let longest = 0;
    // Events end at blank lines; CR line ends are rare, so LF alone is searched natively.
    const returns = chunk.indexOf(RETURN) !== -1;
    let i = returns ? 0 : chunk.indexOf(NEWLINE);
    while (i !== -1 && i < chunk.length) {
      const byte = chunk[i];
      if (byte === NEWLINE || byte === RETURN) {
        const previous = at(i - 1);
        const blank = byte === NEWLINE && previous === RETURN
          ? at(i - 2) === NEWLINE || at(i - 2) === RETURN
          : previous === NEWLINE || previous === RETURN;
        if (blank) {
          longest = Math.max(longest, open + i + 1 - start);
          open = 0;
          start = i + 1;
        }
      }
      i = returns ? i + 1 : chunk.indexOf(NEWLINE, i + 1);
    }
    open += chunk.length - start;
    before2 = at(chunk.length - 2);
    before1 = at(chunk.length - 1);
    return Math.max(longest, open);
  };
  const fail = (controller: ReadableStreamDefaultController, error: Error) => {
    controller.error(error);
    reader.cancel(error).catch(() => {});
  };
  // A pull source rather than a TransformStream: one stream hop per chunk instead of two.
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read().catch((error) => {
        if (typeof error === "object" && error !== null) readFailures.add(error);
        throw error;
      });
      if (done) return controller.close();
      total += value.length;
      if (total > maxBytes) {
        return fail(controller, new ResponseTooLargeError("maxResponseBytes", maxBytes));
      }
      if (measure(value) > maxEventBytes) {
        return fail(controller, new ResponseTooLargeError("maxEventBytes", maxEventBytes));
      }
      controller.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
}
