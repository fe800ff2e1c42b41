/**
 * The tool batch in flight, followed from the loop's events, so an agent's `state()` taken
 * mid-run says which calls finished (with their results) and which are executing.
 *
 * @module
 */

import type { AgentEvent } from "../core/agent_event.ts";
import type { ToolResultMessage } from "../core/messages.ts";
import { toolCallsOf } from "./resolve_decisions.ts";

/** What a batch in flight has done so far. */
export interface BatchProgress {
  /** Results of the calls that finished, in finishing order. */
  results: ToolResultMessage[];
  /** Ids of the calls executing now. */
  running: Set<string>;
}

/**
 * Follows one agent's batches: a batch starts with an assistant message that has tool
 * calls and ends with its turn.
 *
 * @example A call starts, then ends
 * ```ts
 * import { BatchTracker } from "./batch_tracker.ts";
 * import { equal } from "node:assert/strict";
 *
 * const tracker = new BatchTracker();
 * tracker.begin([]);
 * tracker.track({ type: "tool_execution_start", toolCallId: "c1", toolName: "t", args: {} });
 * equal(tracker.current?.running.has("c1"), true);
 * tracker.track({
 *   type: "tool_execution_end", toolCallId: "c1", toolName: "t",
 *   result: { content: [] }, isError: false,
 * });
 * equal(tracker.current?.results.length, 1);
 * ```
 */
export class BatchTracker {
  /** The batch in flight, if any. */
  current: BatchProgress | undefined;

  /**
   * Starts following a batch (a resumed one starts with the results it already had).
   *
   * @param results The batch's finished results so far.
   */
  begin(results: readonly ToolResultMessage[]): void {
    this.current = { results: [...results], running: new Set() };
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
        if (toolCallsOf(event.message).length > 0) this.begin([]);
        break;
      case "tool_execution_start":
        this.current?.running.add(event.toolCallId);
        break;
      case "tool_execution_deferred":
        this.current?.running.delete(event.toolCallId);
        break;
      case "tool_execution_end":
        if (this.current?.running.delete(event.toolCallId)) {
          this.current.results.push({
            role: "toolResult",
            toolCallId: event.toolCallId,
            toolName: event.toolName,
            content: event.result.content,
            details: event.result.details,
            isError: event.isError,
            timestamp: Date.now(),
          });
        }
        break;
      case "turn_end":
        this.current = undefined;
    }
  }
}
