/**
 * The failure of a stream that ended without saying it was complete.
 *
 * @module
 */

/**
 * A stream closed cleanly but before its final event (`finish_reason`, or
 * `response.completed`): the server or a proxy dropped the rest. Retried like a broken
 * connection when no output had arrived.
 *
 * @example
 * ```ts
 * import { IncompleteStreamError } from "@tack/agent/sdk/providers/openai";
 * import { equal } from "node:assert/strict";
 *
 * equal(new IncompleteStreamError().message, "the stream ended before the response was complete");
 * ```
 */
export class IncompleteStreamError extends Error {
  /** Creates the error. */
  constructor() {
    super("the stream ended before the response was complete");
    this.name = "IncompleteStreamError";
  }
}

/**
 * No data arrived for `idleTimeoutMs`: the server or the network stalled. Retried like
 * a broken connection when no output had arrived.
 *
 * @example
 * ```ts
 * import { StalledStreamError } from "@tack/agent/sdk/providers/openai";
 * import { equal } from "node:assert/strict";
 *
 * equal(new StalledStreamError(50).message, "no data arrived for 50 ms (idleTimeoutMs)");
 * ```
 */
export class StalledStreamError extends Error {
  /**
   * Creates the error.
   *
   * @param ms The idle timeout that passed.
   */
  constructor(ms: number) {
    super(`no data arrived for ${ms} ms (idleTimeoutMs)`);
    this.name = "StalledStreamError";
  }
}
