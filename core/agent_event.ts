/**
 * Events a run emits, in order, for UIs, logs and policies.
 *
 * @module
 */

import type { AssistantMessageEvent } from "./assistant_message_event.ts";
import type { AssistantMessage, Message, ToolResultMessage } from "./messages.ts";
import type { ToolResult } from "./tool.ts";

/**
 * One event of a run. A one-call run goes: `agent_start`, `turn_start`, the prompt's
 * `message_start`/`message_end`, the assistant's `message_start`, `message_update`s,
 * `message_end`, `tool_execution_start`, `tool_execution_end`, the result's
 * `message_start`/`message_end`, `turn_end`, then the next turn, and `agent_end` last.
 */
export type AgentEvent =
  | {
    type: "agent_start";
    /** `true` when the run goes on from an interrupted batch (`Agent.resume`), not a prompt. */
    resumed?: boolean;
  }
  | { type: "agent_end"; messages: Message[] }
  | { type: "turn_start" }
  | { type: "turn_end"; message: AssistantMessage; toolResults: ToolResultMessage[] }
  | { type: "message_start"; message: Message }
  | {
    type: "message_update";
    message: AssistantMessage;
    assistantMessageEvent: AssistantMessageEvent;
  }
  | { type: "message_end"; message: Message }
  | {
    type: "tool_execution_start";
    toolCallId: string;
    toolName: string;
    args: Record<string, unknown>;
  }
  | {
    type: "tool_execution_update";
    toolCallId: string;
    toolName: string;
    partialResult: ToolResult;
  }
  | {
    /** A hook deferred the call: it waits for a person's decision (see `agent.pending`). */
    type: "tool_execution_deferred";
    toolCallId: string;
    toolName: string;
    /** The final arguments: exactly what runs if it is approved. */
    args: Record<string, unknown>;
    /** Why a person must decide. */
    reason: string;
    /** Who deferred it (a plugin's name, or `createAgent`). */
    deferredBy?: string;
  }
  | {
    type: "tool_execution_end";
    toolCallId: string;
    toolName: string;
    result: ToolResult;
    isError: boolean;
    /** The arguments the tool ran with (validated, coerced, rewritten); absent if it never ran. */
    args?: Record<string, unknown>;
    /** Who blocked the call (a plugin's name, or `createAgent`), when a hook did. */
    blockedBy?: string;
    /** Who rewrote its arguments, in order, when any hook did. */
    rewrittenBy?: readonly string[];
  };

/**
 * Receives events. Contract: must not throw (a throw, or a rejected promise it returns,
 * is reported and the run goes on). `message_start`/`message_update` of an assistant
 * message carry the partial message as it streams: the same object, still changing; copy
 * it to keep it. `message_end` carries the final message.
 */
export type AgentEventSink = (event: AgentEvent) => void;
