/**
 * One turn: attempts, retries before any output, the idle watchdog, and abort.
 *
 * @module
 */

import type { ModelRequest } from "../../../core/model.ts";
import { describeError } from "./describe_error.ts";
import { IdleWatchdog } from "./idle_watchdog.ts";
import { isRetryable, retryDelayMs, type RetryPolicy } from "./retry.ts";
import { sleep } from "../../sleep.ts";
import type { RequestSettings } from "./settings.ts";
import { StalledStreamError } from "./stream_error.ts";
import type { StreamingMessage } from "./streaming_message.ts";

/** The message of a turn that was aborted. */
export const ABORTED_MESSAGE = "The request was aborted";

/** One attempt at streaming a turn (Chat Completions or Responses). */
export type Attempt = (
  request: ModelRequest,
  settings: RequestSettings,
  out: StreamingMessage,
  signal: AbortSignal,
  onChunk: () => void,
) => Promise<void>;

/** How a turn is run. */
export interface TurnPlan {
  readonly attempt: Attempt;
  readonly settings: RequestSettings;
  readonly policy: RetryPolicy;
  /** Abort an attempt after this long without data (none when `undefined`). */
  readonly idleTimeoutMs: number | undefined;
}

/**
 * Runs a turn to its end in `out`: attempts until one ends the message, retrying
 * transient failures while no output has arrived (each attempt with its own HTTP
 * request), reporting the last failure otherwise. The caller's abort cancels the
 * current request or backoff and ends the turn as `"aborted"`.
 *
 * @param request The turn's request.
 * @param signal The caller's abort signal.
 * @param out The message being built (ended when this resolves).
 * @param plan The attempt function, settings, retry policy and idle timeout.
 * @returns Once `out` has ended.
 *
 * @example A turn aborted before it starts
 * ```ts
 * import { AssistantMessageStream } from "@tack/agent";
 * import OpenAI from "@openai/openai";
 * import { streamTurn } from "./stream_turn.ts";
 * import { StreamingMessage } from "./streaming_message.ts";
 * import { DEFAULT_RETRY_POLICY } from "./retry.ts";
 * import { equal } from "node:assert/strict";
 *
 * const out = new StreamingMessage(new AssistantMessageStream(), "m");
 * await streamTurn({ systemPrompt: "", messages: [], tools: [] }, AbortSignal.abort(), out, {
 *   attempt: () => Promise.reject(new Error("not reached")),
 *   settings: {
 *     client: new OpenAI({ apiKey: "k" }), model: "m", baseURL: "http://x/v1",
 *     maxTokensField: "max_tokens", strictTools: true,
 *   },
 *   policy: DEFAULT_RETRY_POLICY,
 *   idleTimeoutMs: undefined,
 * });
 * equal(out.message.stopReason, "aborted");
 * ```
 */
export async function streamTurn(
  request: ModelRequest,
  signal: AbortSignal | undefined,
  out: StreamingMessage,
  plan: TurnPlan,
): Promise<void> {
  const { attempt, settings, policy, idleTimeoutMs } = plan;
  if (signal?.aborted) return out.fail("aborted", ABORTED_MESSAGE);
  let current: AbortController | undefined;
  const onAbort = () => current?.abort(signal?.reason);
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    for (let retry = 0;; retry++) {
      current = new AbortController();
      const watchdog = new IdleWatchdog(idleTimeoutMs, current);
      try {
        await attempt(request, settings, out, current.signal, watchdog.touch);
        if (out.ended) return;
        // The client ends its iteration quietly on abort, leaving the message open.
        if (!watchdog.fired) return out.fail("aborted", ABORTED_MESSAGE);
        throw new StalledStreamError(idleTimeoutMs ?? 0);
      } catch (thrown) {
        if (signal?.aborted) return out.fail("aborted", ABORTED_MESSAGE);
        const error = watchdog.fired ? new StalledStreamError(idleTimeoutMs ?? 0) : thrown;
        const canRetry = !out.hasOutput && retry < policy.maxRetries && isRetryable(error);
        const delay = canRetry ? retryDelayMs(retry, error, policy) : undefined;
        if (delay === undefined) {
          const tries = retry > 0 ? ` (after ${retry + 1} attempts)` : "";
          const context = {
            baseURL: settings.baseURL,
            model: settings.model,
            timeoutMs: settings.timeoutMs,
            redact: settings.redact,
            unreadBaseURL: settings.unreadBaseURL,
            // A retry was due, but the server's Retry-After asked for too long a wait.
            refusedRetryAfterMs: canRetry ? policy.maxRetryAfterMs : undefined,
            retried: retry > 0,
          };
          return out.fail("error", describeError(error, context) + tries);
        }
        if (!(await sleep(delay, signal))) return out.fail("aborted", ABORTED_MESSAGE);
      } finally {
        watchdog.stop();
      }
    }
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }
}
