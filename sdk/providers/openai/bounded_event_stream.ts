/**
 * Bounds the bytes of an event-stream body before the `openai` client reads it: the
 * client buffers an event until its blank line, however long, and reads a stream until it
 * ends, however much of it counts for nothing (empty deltas, `: ping` comments).
 *
 * @module
 */

import { EventMeter } from "./event_meter.ts";
import { ResponseTooLargeError } from "./response_limits.ts";

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
  /**
   * Bytes of one event: its lines up to the blank line that ends them, and any comments
   * (`: ping`) and other lines since the event before, which the client holds with it.
   */
  readonly maxEventBytes: number;
}

/**
 * Wraps an event-stream body so that it errors with {@linkcode ResponseTooLargeError}
 * once the body passes `maxBytes` (`maxResponseBytes`), or one event passes
 * `maxEventBytes` (`maxEventBytes`) without the blank line that ends it (`\n\n`,
 * `\r\r`, `\r\n\r\n`, as the client splits events). An event is what the client holds
 * until it hands one on ({@linkcode EventMeter}): comments and other lines before a
 * `data` line count toward it, so `: ping` comments without end pass the bound too. The
 * chunk that passes a limit is not passed on, and the body it came from is cancelled.
 *
 * @param body The response's body.
 * @param bounds The limits.
 * @param onRead Called whenever bytes arrive, comments included (the idle watchdog).
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
  onRead: () => void = () => {},
): ReadableStream<Uint8Array> {
  const { maxBytes, maxEventBytes } = bounds;
  const reader = body.getReader();
  let total = 0;
  const meter = new EventMeter();
  const fail = (controller: ReadableStreamDefaultController, error: Error) => {
    controller.error(error);
    reader.cancel(error).catch(() => {});
  };
  // A pull source rather than a TransformStream: one stream hop per chunk instead of two.
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let read: ReadableStreamReadResult<Uint8Array>;
      try {
        read = await reader.read();
      } catch (error) {
        if (typeof error === "object" && error !== null) readFailures.add(error);
        throw error;
      }
      const { done, value } = read;
      if (done) return controller.close();
      onRead();
      total += value.length;
      if (total > maxBytes) {
        return fail(controller, new ResponseTooLargeError("maxResponseBytes", maxBytes));
      }
      if (meter.measure(value) > maxEventBytes) {
        return fail(controller, new ResponseTooLargeError("maxEventBytes", maxEventBytes));
      }
      controller.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
}
