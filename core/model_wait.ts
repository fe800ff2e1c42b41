/**
 * The waits of one model call, bounded after the run's abort.
 *
 * @module
 */

import type { AssistantMessageStream } from "./assistant_message_stream.ts";
import { keepLayout } from "./keep_layout.ts";
import type { AssistantMessage } from "./messages.ts";

/**
 * How long a model may take, once the run is aborted, to end its turn itself (a provider
 * ends it with what it streamed so far) before the turn is ended without it.
 */
export const MODEL_ABORT_GRACE_MS = 500;

/** What a wait rejects with when the model did not end its turn within the grace. */
export const GAVE_UP: unique symbol = Symbol("the model did not end its turn after the abort");

/**
 * The waits of one model call (its stream, its events, its result): each ends on its own, or
 * once the run was aborted and {@linkcode MODEL_ABORT_GRACE_MS} passed, for all of them
 * together, without the model ending its turn. A model that ignores the signal (a hung
 * connection, a wedged local server, one that keeps streaming) cannot hold the run. One abort
 * listener and at most one timer per call; `dispose()` removes them.
 *
 * @example A model that never answers, after an abort
 * ```ts
 * import { GAVE_UP, ModelWait } from "./model_wait.ts";
 * import { rejects } from "node:assert/strict";
 *
 * const controller = new AbortController();
 * const wait = new ModelWait(controller.signal);
 * controller.abort();
 * await rejects(wait.for(new Promise(() => {})), (error) => error === GAVE_UP);
 * wait.dispose();
 * ```
 */
export class ModelWait {
  static {
    keepLayout(new ModelWait(new AbortController().signal));
  }
  readonly #signal: AbortSignal;
  #expired: Promise<never> | undefined;
  #reject: ((reason: unknown) => void) | undefined;
  #guarded: AssistantMessageStream | undefined;
  #ended: (() => AssistantMessage) | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #listening = false;

  /**
   * Prepares the waits of one model call.
   *
   * @param signal The run's abort signal.
   */
  constructor(signal: AbortSignal) {
    this.#signal = signal;
  }

  /**
   * Waits for `value`, at most until the grace after the abort has passed.
   *
   * @param value What the model owes.
   * @returns It, or a rejection with {@linkcode GAVE_UP}.
   */
  for<T>(value: T | PromiseLike<T>): Promise<T> {
    if (this.#expired === undefined) {
      this.#expired = new Promise<never>((_resolve, reject) => (this.#reject = reject));
      this.#expired.catch(() => {}); // a wait that settled first leaves it unread
      this.#listen();
    }
    return Promise.race([value, this.#expired]);
  }

  /**
   * Ends Tack's own stream once the grace has passed, with `ended()` as its final message
   * ({@linkcode AssistantMessageStream.abandon}): its reader then needs no race per wait.
   *
   * @param stream The model's stream.
   * @param ended Makes the final message (what was streamed, aborted).
   */
  guard(stream: AssistantMessageStream, ended: () => AssistantMessage): void {
    this.#guarded = stream;
    this.#ended = ended;
    this.#listen();
  }

  /** Removes the abort listener and the timer. */
  dispose(): void {
    clearTimeout(this.#timer);
    if (this.#listening) this.#signal.removeEventListener("abort", this.#onAbort);
    this.#listening = false;
  }

  #listen(): void {
    if (this.#listening || this.#timer !== undefined) return;
    if (this.#signal.aborted) this.#onAbort();
    else {
      this.#signal.addEventListener("abort", this.#onAbort);
      this.#listening = true;
    }
  }

  #onAbort = (): void => {
    this.#timer ??= setTimeout(this.#giveUp, MODEL_ABORT_GRACE_MS);
  };

  #giveUp = (): void => {
    this.#reject?.(GAVE_UP);
    if (this.#guarded && this.#ended) this.#guarded.abandon(this.#ended());
  };
}
