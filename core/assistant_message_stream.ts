/**
 * A push-based stream of {@linkcode AssistantMessageEvent}s with a final result.
 *
 * @module
 */

import type { AssistantMessageEvent } from "./assistant_message_event.ts";
import { keepLayout } from "./keep_layout.ts";
import type { AssistantMessage } from "./messages.ts";

/**
 * What a model returns for one turn: the events as they happen, then the final message.
 *
 * Contract: a stream always ends with a `done` or `error` event, and `result()` resolves
 * with the final message (it never rejects for model or network failures).
 */
export interface AssistantMessageEventStream extends AsyncIterable<AssistantMessageEvent> {
  /** The final assistant message, once the stream has ended. */
  result(): Promise<AssistantMessage>;
}

/**
 * The stream a provider pushes into: `push` events as they arrive, and the stream
 * ends by itself on `done` or `error`. Iterate it once.
 *
 * @example Pushing a one-word answer
 * ```ts
 * import { AssistantMessageStream, emptyUsage, type AssistantMessage } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * const message: AssistantMessage = {
 *   role: "assistant", content: [{ type: "text", text: "hi" }], stopReason: "stop",
 *   usage: emptyUsage(), provider: "demo", model: "demo", timestamp: 0,
 * };
 * const stream = new AssistantMessageStream();
 * stream.push({ type: "start", partial: message });
 * stream.push({ type: "done", reason: "stop", message });
 * const types: string[] = [];
 * for await (const event of stream) types.push(event.type);
 * equal(types.join(","), "start,done");
 * equal((await stream.result()).content.length, 1);
 * ```
 */
export class AssistantMessageStream implements AssistantMessageEventStream {
  static {
    keepLayout(new AssistantMessageStream());
  }
  #queue: AssistantMessageEvent[] = [];
  #head = 0;
  #wake: (() => void) | undefined;
  #ended = false;
  #abandoned = false;
  #resolveFinal!: (message: AssistantMessage) => void;
  #finalPromise: Promise<AssistantMessage> = new Promise((resolve) => {
    this.#resolveFinal = resolve;
  });

  /**
   * Adds an event; a `done` or `error` event ends the stream.
   *
   * @param event The next event.
   * @throws {Error} When the stream has already ended (a provider bug).
   */
  push(event: AssistantMessageEvent): void {
    if (this.#abandoned) return; // its reader gave up on it (see abandon)
    if (this.#ended) throw new Error(`Cannot push "${event.type}": the stream has ended`);
    if (event.type === "done" || event.type === "error") {
      this.#ended = true;
      this.#resolveFinal(event.type === "done" ? event.message : event.error);
    }
    this.#queue.push(event);
    const wake = this.#wake;
    if (wake) {
      this.#wake = undefined;
      wake();
    }
  }

  /**
   * Ends the stream from the reader's side, with `message` as its final message (an `error`
   * event): the loop does so when a model ignores the run's abort. What the model pushes
   * afterwards is dropped, not refused, so a model that goes on cannot crash its host.
   * Nothing happens when the stream has ended already.
   *
   * @param message The final message (an aborted one).
   */
  abandon(message: AssistantMessage): void {
    if (this.#ended) return;
    this.push({ type: "error", reason: "aborted", error: message });
    this.#abandoned = true;
  }

  /** Whether `done` or `error` has been pushed. */
  get ended(): boolean {
    return this.#ended;
  }

  /**
   * Takes the next buffered event without waiting.
   *
   * @returns The event, or `undefined` when none is buffered yet (see {@linkcode ready}).
   */
  shift(): AssistantMessageEvent | undefined {
    if (this.#head === this.#queue.length) return undefined;
    const event = this.#queue[this.#head++];
    if (this.#head === this.#queue.length) {
      this.#queue.length = 0;
      this.#head = 0;
    }
    return event;
  }

  /**
   * Resolves once an event is buffered or the stream has ended.
   *
   * @returns A promise that resolves when there is something to take.
   */
  ready(): Promise<void> {
    if (this.#head < this.#queue.length || this.#ended) return Promise.resolve();
    return new Promise((resolve) => (this.#wake = resolve));
  }

  /** The final message (resolves once the stream has ended). */
  result(): Promise<AssistantMessage> {
    return this.#finalPromise;
  }

  /** Iterates the events once, in order, until `done` or `error`. */
  [Symbol.asyncIterator](): AsyncIterator<AssistantMessageEvent> {
    return {
      next: async (): Promise<IteratorResult<AssistantMessageEvent>> => {
        for (;;) {
          const value = this.shift();
          if (value !== undefined) return { value, done: false };
          if (this.#ended) return { value: undefined, done: true };
          await this.ready();
        }
      },
    };
  }
}
