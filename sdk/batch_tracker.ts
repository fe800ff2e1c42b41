/**
 * The tool batch in flight, followed from the loop's events, so an agent's `state()` taken
 * mid-run says which calls finished (with their results) and which are executing.
 *
 * @module
 */

import type { AgentEvent } from "../core/agent_event.ts";
import type { ToolResultMessage } from "../core/messages.ts";
import { keepLayout } from "../core/keep_layout.ts";

/** What a batch in flight has done so far. */
export interface BatchProgress {
  /** Results of the calls that finished, in finishing order. */
  readonly results: ToolResultMessage[];
  /** Ids of the calls that started, in order: executing unless they finished or were deferred. */
  readonly started: string[];
  /** Ids of the calls a hook deferred. */
  readonly deferred: string[];
}

type End = Extract<AgentEvent, { type: "tool_execution_end" }>;

/**
 * A batch's progress as the events came: a finished call's result message is built only
 * when asked for (a state taken mid-run), so following a batch costs a push per event.
 */
class Progress implements BatchProgress {
  static {
    keepLayout(new Progress([]));
  }
  readonly started: string[] = [];
  readonly deferred: string[] = [];
  readonly #earlier: readonly ToolResultMessage[];
  readonly #ends: End[] = [];
  readonly #endedAt: number[] = [];

  constructor(earlier: readonly ToolResultMessage[]) {
    this.#earlier = [...earlier];
  }

  /** Records a call's end. */
  ended(event: End): void {
    this.#ends.push(event);
    this.#endedAt.push(Date.now());
  }

  get results(): ToolResultMessage[] {
    const results = [...this.#earlier];
    for (let i = 0; i < this.#ends.length; i++) {
      const end = this.#ends[i];
      const result: ToolResultMessage = {
        role: "toolResult",
        toolCallId: end.toolCallId,
        toolName: end.toolName,
        content: end.result.content,
        details: end.result.details,
        isError: end.isError,
        timestamp: this.#endedAt[i],
      };
      if (end.result.terminate === true) result.terminate = true;
      results.push(result);
    }
    return results;
  }
}

/**
 * The ids of a batch's calls executing now: started, not finished, not deferred. Worked out
 * when asked (a state taken mid-run), so following the batch costs one push per event.
 *
 * @param batch The batch in flight.
 * @returns The ids, in start order.
 *
 * @example
 * ```ts
 * import { runningCalls } from "./batch_tracker.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * deepEqual(runningCalls({ results: [], started: ["a", "b", "c"], deferred: ["b"] }), ["a", "c"]);
 * ```
 */
export function runningCalls(batch: BatchProgress): string[] {
  const over = new Set(batch.deferred);
  for (const result of batch.results) over.add(result.toolCallId);
  return batch.started.filter((id) => !over.has(id));
}

/**
 * Follows one agent's batches: a batch starts with an assistant message that has tool
 * calls and ends with its turn.
 *
 * @example A call starts, then ends
 * ```ts
 * import { BatchTracker, runningCalls } from "./batch_tracker.ts";
 * import { equal } from "node:assert/strict";
 *
 * const tracker = new BatchTracker();
 * tracker.begin([]);
 * tracker.track({ type: "tool_execution_start", toolCallId: "c1", toolName: "t", args: {} });
 * equal(tracker.current && runningCalls(tracker.current).join(), "c1");
 * tracker.track({
 *   type: "tool_execution_end", toolCallId: "c1", toolName: "t",
 *   result: { content: [] }, isError: false,
 * });
 * equal(tracker.current?.results.length, 1);
 * equal(runningCalls(tracker.current!).length, 0);
 * ```
 */
export class BatchTracker {
  static {
    keepLayout(new BatchTracker());
  }
  /** The batch in flight, if any. */
  current: Progress | undefined;

  /**
   * Starts following a batch (a resumed one starts with the results it already had).
   *
   * @param results The batch's finished results so far.
   */
  begin(results: readonly ToolResultMessage[]): void {
    this.current = new Progress(results);
  }

  /** Stops following (the run ended). */
  clear(): void {
    this.current = undefined;
  }

  /**
   * Takes one event into account.
   *
   * @param event The loop's event.
   */
  track(event: AgentEvent): void {
    switch (event.type) {
      case "message_end":
        // A batch starts with an assistant message asking for tools (not with its results).
        if (
          event.message.role === "assistant" &&
          event.message.content.some((block) => block.type === "toolCall")
        ) {
          this.begin([]);
        }
        break;
      case "tool_execution_start":
        this.current?.started.push(event.toolCallId);
        break;
      case "tool_execution_deferred":
        this.current?.deferred.push(event.toolCallId);
        break;
      case "tool_execution_end":
        // Every call ends once, after its start (the loop guarantees both).
        this.current?.ended(event);
        break;
      case "turn_end":
        this.current = undefined;
    }
  }
}
