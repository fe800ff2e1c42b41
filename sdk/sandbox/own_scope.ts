/**
 * What a sandboxed plugin's hooks see when their scope is `"own"`: its own tools' calls
 * and results, and nothing else of the run (no transcript, no other tool's call, result
 * or event).
 *
 * @module
 */

import type { AgentEvent } from "../../core/agent_event.ts";
import type { ShouldStopAfterTurnContext } from "../../core/hooks.ts";
import type { AssistantMessage } from "../../core/messages.ts";

/**
 * The part of an event a hook scoped to `own` tools may see: `agent_start`, `turn_start`
 * and the `tool_execution_*` events of its own tools; nothing else.
 *
 * @param event The event.
 * @param own The names of the plugin's own tools.
 * @returns The event, or `undefined` when it is outside the scope.
 *
 * @example Another plugin's tool stays unseen
 * ```ts
 * import { ownEvent } from "./own_scope.ts";
 * import { equal } from "node:assert/strict";
 *
 * import type { AgentEvent } from "@tack/agent";
 *
 * const own = new Set(["echo"]);
 * const end: AgentEvent = { type: "tool_execution_end", toolCallId: "1", toolName: "read",
 *   result: { content: [] }, isError: false };
 * equal(ownEvent(end, own), undefined);
 * equal(ownEvent({ ...end, toolName: "echo" }, own)?.type, "tool_execution_end");
 * ```
 */
export function ownEvent(event: AgentEvent, own: ReadonlySet<string>): AgentEvent | undefined {
  switch (event.type) {
    case "agent_start":
    case "turn_start":
      return event;
    case "tool_execution_start":
    case "tool_execution_update":
    case "tool_execution_end":
      return own.has(event.toolName) ? event : undefined;
    default:
      return undefined;
  }
}

/**
 * The part of an assistant message a hook scoped to `own` tools may see: its calls of
 * those tools, none of the model's text or other calls.
 *
 * @param message The assistant message (a hook's `assistantMessage`, a turn's `message`).
 * @param own The names of the plugin's own tools.
 * @returns A copy with only those calls in its content.
 *
 * @example Another plugin's call and the model's text stay unseen
 * ```ts
 * import { ownMessage } from "./own_scope.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * // deno-lint-ignore no-explicit-any
 * const message = { role: "assistant", content: [{ type: "text", text: "secret" },
 *   { type: "toolCall", id: "1", name: "read", arguments: {} },
 *   { type: "toolCall", id: "2", name: "echo", arguments: {} }] } as any;
 * deepEqual(ownMessage(message, new Set(["echo"])).content.map((b) => b.type === "toolCall" && b.id), ["2"]);
 * ```
 */
export function ownMessage(message: AssistantMessage, own: ReadonlySet<string>): AssistantMessage {
  return {
    ...message,
    content: message.content.filter((block) => block.type === "toolCall" && own.has(block.name)),
  };
}

/**
 * The part of a turn a `shouldStopAfterTurn` hook scoped to `own` tools may see: the
 * turn's calls of its own tools and their results, no transcript.
 *
 * @param context The turn, as the loop gives it.
 * @param own The names of the plugin's own tools.
 * @returns The narrowed turn (as JSON for the sandbox), or `undefined` when the turn
 * called none of its tools (then the hook is not asked).
 *
 * @example A turn without the plugin's tools
 * ```ts
 * import { ownTurn } from "./own_scope.ts";
 * import { equal } from "node:assert/strict";
 *
 * // deno-lint-ignore no-explicit-any
 * const turn = { message: { content: [] }, toolResults: [{ toolName: "read" }] } as any;
 * equal(ownTurn(turn, new Set(["echo"])), undefined);
 * ```
 */
export function ownTurn(
  context: ShouldStopAfterTurnContext,
  own: ReadonlySet<string>,
): Record<string, unknown> | undefined {
  const toolResults = context.toolResults.filter((result) => own.has(result.toolName));
  if (toolResults.length === 0) return undefined;
  return {
    message: ownMessage(context.message, own),
    toolResults,
    newMessages: [],
    context: { systemPrompt: "", messages: [], tools: [] },
  };
}
