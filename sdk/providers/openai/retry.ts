/**
 * When and how long to wait before retrying a request that failed before any output.
 *
 * @module
 */

import { APIConnectionError, APIError } from "@openai/openai";
import { isBodyReadFailure } from "./bounded_event_stream.ts";
import { NotAStreamError } from "./reply_fetch.ts";
import { RedirectRefusedError } from "./same_origin_fetch.ts";
import { IncompleteStreamError, StalledStreamError } from "./stream_error.ts";

/** How the provider retries a request that failed before any output arrived. */
export interface RetryPolicy {
  /** Retries after the first attempt (default 2). */
  maxRetries: number;
  /** The first backoff, doubled on each retry (default 500 ms). */
  baseDelayMs: number;
  /** The longest backoff (default 8 000 ms). */
  maxDelayMs: number;
  /** A longer `Retry-After` than this is not waited for: the error is reported (default 60 000 ms). */
  maxRetryAfterMs: number;
}

/** The default {@linkcode RetryPolicy}. */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = {
  maxRetries: 2,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
};

/**
 * Whether a failed request is worth retrying: rate limits (429), server errors (5xx),
 * timeouts (408), conflicts (409), and connections that failed, broke or closed early
 * ({@linkcode IncompleteStreamError}) or stalled ({@linkcode StalledStreamError}). A response the
 * server rejected (400, 401, 404, …) is not, nor a 2xx reply that is not a stream
 * ({@linkcode NotAStreamError}), nor an abort, nor an in-stream error event, nor a
 * `TypeError` that is neither a failed read of the body ({@linkcode isBodyReadFailure})
 * nor has a cause (`fetch failed` has the network's): a chunk of an unexpected shape.
 *
 * @param error What the request failed with.
 * @returns `true` for transient failures.
 *
 * @example
 * ```ts
 * import { isRetryable } from "@tack/agent/sdk/providers/openai";
 * import { equal } from "node:assert/strict";
 *
 * const refused = new Error("Connection refused (os error 111)");
 * equal(isRetryable(new TypeError("fetch failed", { cause: refused })), true);
 * equal(isRetryable(new TypeError("Cannot read properties of null (reading 'type')")), false);
 * equal(isRetryable(new Error("bug")), false);
 * ```
 */
export function isRetryable(error: unknown): boolean {
  if (error instanceof IncompleteStreamError || error instanceof StalledStreamError) return true;
  if (error instanceof APIConnectionError) {
    // The server answered, with something else than a stream: it would again.
    return !(error.cause instanceof Deno.errors.NotCapable ||
      error.cause instanceof NotAStreamError || error.cause instanceof RedirectRefusedError);
  }
  if (error instanceof APIError) {
    const status = error.status;
    if (status === undefined) return false; // an error event inside a stream
    return status === 408 || status === 409 || status === 429 || status >= 500;
  }
  return isConnectionTypeError(error) &&
    !((error as Error).cause instanceof Deno.errors.NotCapable);
}

/**
 * Whether a `TypeError` is a connection's: fetch reports a broken one as a `TypeError`
 * when the body's read failed, or with the network's error as its cause. Any other is
 * a chunk the code could not read (`"choices": [null]`).
 *
 * @param error What a stream failed with.
 * @returns `true` for a connection's `TypeError`.
 *
 * @example
 * ```ts
 * import { isConnectionTypeError } from "@tack/agent/sdk/providers/openai";
 * import { equal } from "node:assert/strict";
 *
 * equal(isConnectionTypeError(new TypeError("fetch failed", { cause: new Error("reset") })), true);
 * equal(isConnectionTypeError(new TypeError("Cannot read properties of null")), false);
 * ```
 */
export function isConnectionTypeError(error: unknown): boolean {
  return error instanceof TypeError && (isBodyReadFailure(error) || error.cause instanceof Error);
}

/**
 * The wait the server asked for in `retry-after-ms` or `Retry-After` (seconds or an
 * HTTP date), if any.
 *
 * @param headers The response headers.
 * @param now The current time (for dates).
 * @returns Milliseconds to wait (at least 0), or `undefined` when there is no usable header.
 *
 * @example
 * ```ts
 * import { retryAfterMs } from "@tack/agent/sdk/providers/openai";
 * import { equal } from "node:assert/strict";
 *
 * equal(retryAfterMs(new Headers({ "retry-after": "2" })), 2000);
 * equal(retryAfterMs(new Headers()), undefined);
 * ```
 */
export function retryAfterMs(
  headers: Headers | undefined,
  now: number = Date.now(),
): number | undefined {
  const ms = Number.parseFloat(headers?.get("retry-after-ms") ?? "");
  if (Number.isFinite(ms)) return Math.max(0, ms);
  const value = headers?.get("retry-after")?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * How long to wait before retry number `retry` (0 for the first retry): what the server
 * asked for in `Retry-After`, else exponential backoff with jitter (between half and all
 * of `baseDelayMs * 2^retry`, capped at `maxDelayMs`). `undefined` means do not retry:
 * the server asked for a longer wait than `maxRetryAfterMs`.
 *
 * @param retry Which retry this is, from 0.
 * @param error What the last attempt failed with.
 * @param policy The retry policy.
 * @param random A source of randomness in [0, 1) (for tests).
 * @returns The delay in milliseconds, or `undefined` to give up.
 *
 * @example Backoff stays within its window
 * ```ts
 * import { DEFAULT_RETRY_POLICY, retryDelayMs } from "@tack/agent/sdk/providers/openai";
 * import { equal } from "node:assert/strict";
 *
 * // The second retry waits between 500 and 1000 ms.
 * equal(retryDelayMs(1, new TypeError("x"), DEFAULT_RETRY_POLICY, () => 0), 500);
 * equal(retryDelayMs(1, new TypeError("x"), DEFAULT_RETRY_POLICY, () => 0.999), 1000);
 * ```
 */
export function retryDelayMs(
  retry: number,
  error: unknown,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number | undefined {
  const asked = error instanceof APIError ? retryAfterMs(error.headers) : undefined;
  if (asked !== undefined) return asked <= policy.maxRetryAfterMs ? asked : undefined;
  const window = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  return Math.round(window / 2 + (window / 2) * random());
}
