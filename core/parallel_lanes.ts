/**
 * The parallel part of a batch: its prepared calls run in lanes, at most `maxConcurrency`
 * at once.
 *
 * @module
 */

import type { CallWatch } from "./call_watch.ts";
import type { ExecuteToolCallsInput } from "./execute_tool_calls.ts";
import { keepLayout } from "./keep_layout.ts";
import type { LoopConfig } from "./loop_config.ts";
import type { PreparedToolCall } from "./prepare_tool_call.ts";
import { runCall } from "./run_call.ts";
import { type Finished, settle, type Settled } from "./settle_call.ts";

/**
 * How many calls of a parallel batch may run at once.
 *
 * @param config The loop's config.
 * @returns `maxConcurrency` when it is set (at least 1), else no limit.
 */
function concurrencyOf(config: LoopConfig): number {
  const cap = config.maxConcurrency;
  return cap === undefined || !(cap >= 1) ? Infinity : Math.floor(cap);
}

/**
 * Runs the prepared calls of a parallel batch in up to `maxConcurrency` lanes: as a call
 * settles, its lane takes the next waiting call, in call order. The calls report through
 * callbacks, so the batch waits once (for the last of them), not once per call.
 *
 * @param input The batch.
 * @param ready Its prepared calls, in call order, with their places in the batch.
 * @param settled Where each call's settled outcome goes, at its place.
 * @param watch The run's watch over running calls.
 * @returns Resolves when every call settled; rejects only for a host bug (a listener threw).
 *
 * @example Two calls, one lane
 * ```ts
 * import { runAll } from "./parallel_lanes.ts";
 * import { CallWatch } from "./call_watch.ts";
 * import type { ExecuteToolCallsInput } from "./execute_tool_calls.ts";
 * import type { ToolResultMessage } from "./messages.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * const tool = {
 *   name: "hi", description: "", parameters: { type: "object" },
 *   execute: () => Promise.resolve({ content: [{ type: "text" as const, text: "hi" }] }),
 * };
 * const call = (id: string) => ({
 *   kind: "prepared" as const, tool, args: {},
 *   toolCall: { type: "toolCall" as const, id, name: "hi", arguments: {} },
 * });
 * const signal = new AbortController().signal;
 * const input = { config: { maxConcurrency: 1 }, signal, emit: () => {} } as unknown as
 *   ExecuteToolCallsInput;
 * const settled: ToolResultMessage[] = [];
 * const watch = new CallWatch(signal);
 * await runAll(input, [{ index: 0, call: call("a") }, { index: 1, call: call("b") }], settled,
 *   watch);
 * watch.dispose();
 * deepEqual(settled.map((one) => one.toolCallId), ["a", "b"]);
 * ```
 */
export function runAll(
  input: ExecuteToolCallsInput,
  ready: ReadyCall[],
  settled: Settled[],
  watch: CallWatch,
): Promise<void> {
  return new Promise((allSettled, broken) => {
    const lanes = new Lanes(input, ready, settled, watch, allSettled, broken);
    const count = Math.min(ready.length, concurrencyOf(input.config));
    for (let lane = 0; lane < count; lane++) lanes.startNext();
  });
}

/** A prepared call of a parallel batch and its place in the batch. */
export interface ReadyCall {
  index: number;
  call: PreparedToolCall;
}

/** The lanes of {@linkcode runAll}: which call starts next, and how many are still open. */
class Lanes {
  static {
    keepLayout(new Lanes({} as ExecuteToolCallsInput, [], [], undefined!, () => {}, () => {}));
  }
  #next = 0;
  #open: number;
  readonly #input: ExecuteToolCallsInput;
  readonly #ready: ReadyCall[];
  readonly #settled: Settled[];
  readonly #watch: CallWatch;
  readonly #allSettled: () => void;
  readonly #broken: (error: unknown) => void;

  constructor(
    input: ExecuteToolCallsInput,
    ready: ReadyCall[],
    settled: Settled[],
    watch: CallWatch,
    allSettled: () => void,
    broken: (error: unknown) => void,
  ) {
    this.#input = input;
    this.#ready = ready;
    this.#settled = settled;
    this.#watch = watch;
    this.#allSettled = allSettled;
    this.#broken = broken;
    this.#open = ready.length;
  }

  startNext(): void {
    if (this.#next === this.#ready.length) return; // another lane took the last waiting call
    const { index, call } = this.#ready[this.#next++];
    runCall(this.#input, call, index, this.#watch, this.#finished);
  }

  /** Takes a call's outcome at its place; one function for the batch, not a closure per call. */
  #finished = (finished: Finished, index: number): void => {
    try {
      this.#settled[index] = settle(this.#input, finished);
    } catch (error) {
      return this.#broken(error); // a host bug (an event listener threw): the run rejects
    }
    if (--this.#open === 0) this.#allSettled();
    // A microtask later, so that a run of synchronous calls does not nest.
    else if (this.#next < this.#ready.length) queueMicrotask(() => this.startNext());
  };
}
