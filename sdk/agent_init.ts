/**
 * What an `Agent` is built from, and how its prompts are taken and queued.
 *
 * @module
 */

import type { AgentEvent } from "../core/agent_event.ts";
import type { LoopConfig, ToolIndex } from "../core/loop_config.ts";
import type { ImageContent, Message, TextContent, UserMessage } from "../core/messages.ts";
import type { AgentTool } from "../core/tool.ts";
import type { AgentState } from "./agent_state.ts";
import type { ToolRegistry } from "./tool_registry.ts";

/** Receives every event. Contract: must not throw (a throw is reported and the run goes on). */
export type AgentListener = (event: AgentEvent) => void;

/** How queued steering and follow-up messages are drained: one per turn (the seed's default), or all at once. */
export type QueueMode = "one-at-a-time" | "all";

/** What the `Agent` is built from; `createAgent` assembles it. */
export interface AgentInit {
  /** The system prompt sent every turn. */
  systemPrompt: string;
  /** Every tool, plugin tools first (the agent's own when `registry` is omitted). */
  tools: readonly AgentTool[];
  /** Unused, kept so existing callers still type-check: the loop indexes the tools of each turn. */
  toolIndex?: ToolIndex;
  /** The tools by owner, which `setTools` and plugins change; built from `tools` when omitted. */
  registry?: ToolRegistry;
  /** The loop's configuration (composed hooks, limits). */
  config: LoopConfig;
  /** A transcript to start from. */
  messages?: readonly Message[];
  /** Listeners subscribed from the start (plugins' `onEvent`). */
  listeners?: readonly AgentListener[];
  /** How steering messages are drained. */
  steeringMode?: QueueMode;
  /** How follow-up messages are drained. */
  followUpMode?: QueueMode;
  /** Releases plugins and the model. */
  dispose?: () => Promise<void>;
  /** An interrupted run to go on from (`resumeAgent`). */
  restore?: Pick<AgentState, "pending" | "completed" | "running" | "sticky" | "turnTools">;
}

/** What `prompt`, `steer` and `followUp` take: text, or a whole user message. */
export type PromptInput = string | UserMessage | (TextContent | ImageContent)[];

/**
 * A prompt as the user message it stands for.
 *
 * @param input Text, content blocks, or a user message (returned as it is).
 * @returns The user message.
 *
 * @example
 * ```ts
 * import { toUserMessage } from "./agent_init.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(toUserMessage("hi").content, "hi");
 * ```
 */
export function toUserMessage(input: PromptInput): UserMessage {
  if (typeof input === "string" || Array.isArray(input)) {
    return { role: "user", content: input, timestamp: Date.now() };
  }
  return input;
}

/**
 * Takes the messages a turn injects from a queue: one, or all.
 *
 * @param queue The queue (emptied as taken).
 * @param mode One per turn, or all at once.
 * @returns The messages taken.
 *
 * @example
 * ```ts
 * import { drain } from "./agent_init.ts";
 * import { equal } from "node:assert/strict";
 *
 * const queue = [{ role: "user" as const, content: "a", timestamp: 0 }, { role: "user" as const, content: "b", timestamp: 0 }];
 * equal(drain(queue, "one-at-a-time").length, 1);
 * equal(queue.length, 1);
 * ```
 */
export function drain(queue: UserMessage[], mode: QueueMode): UserMessage[] {
  if (queue.length === 0) return [];
  return mode === "all" ? queue.splice(0) : queue.splice(0, 1);
}

/**
 * Why a run cannot start while calls of an open batch wait for a decision.
 *
 * @param verb What was asked (`prompt`, `continue`).
 * @param count How many calls wait.
 * @returns The error text.
 *
 * @example
 * ```ts
 * import { waitingReason } from "./agent_init.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(
 *   waitingReason("prompt", 1),
 *   "Cannot prompt: 1 tool call waits for a decision; call resume(decisions) or abort() first",
 * );
 * ```
 */
export function waitingReason(verb: string, count: number): string {
  const calls = count === 1 ? "1 tool call waits" : `${count} tool calls wait`;
  return `Cannot ${verb}: ${calls} for a decision; call resume(decisions) or abort() first`;
}

/** Why `continue()` after the model's answer, with nothing queued, is refused (as pi's). */
export const ANSWERED_REASON =
  "Cannot continue: the run ended with the model's answer (send a prompt, or queue a message with steer or followUp)";

/** Why a resume whose decisions were checked while another resume or an abort went first is refused. */
export const RACED_REASON = "Cannot resume: another resume or an abort came first";
