/**
 * The `Agent`: owns the transcript, runs the loop, fans out events.
 *
 * @module
 */

import type { AgentEvent } from "../core/agent_event.ts";
import type { LoopConfig, ToolIndex } from "../core/loop_config.ts";
import type { LoopState } from "../core/run_loop.ts";
import type { ImageContent, Message, TextContent, UserMessage } from "../core/messages.ts";
import { isPromiseLike } from "../core/maybe_promise.ts";
import { runLoop } from "../core/run_loop.ts";
import type { AgentTool } from "../core/tool.ts";
import { ToolRegistry } from "./tool_registry.ts";

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
}

/** What `prompt`, `steer` and `followUp` take: text, or a whole user message. */
export type PromptInput = string | UserMessage | (TextContent | ImageContent)[];

function toUserMessage(input: PromptInput): UserMessage {
  if (typeof input === "string" || Array.isArray(input)) {
    return { role: "user", content: input, timestamp: Date.now() };
  }
  return input;
}

function reportListenerError(event: AgentEvent, error: unknown): void {
  console.error(`Tack: an event listener threw on "${event.type}":`, error);
}

function drain(queue: UserMessage[], mode: QueueMode): UserMessage[] {
  if (queue.length === 0) return [];
  return mode === "all" ? queue.splice(0) : queue.splice(0, 1);
}

/**
 * A running agent. Create one with `createAgent`.
 *
 * @example Prompting a scripted agent
 * ```ts
 * import { createAgent, scriptedModel, text } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * const agent = createAgent({ model: scriptedModel([[text("Hello!")]]) });
 * const added = await agent.prompt("Hi");
 * equal(added.length, 2);
 * equal(agent.messages.length, 2);
 * ```
 */
export class Agent {
  #messages: Message[];
  #listeners: readonly AgentListener[];
  #steering: UserMessage[] = [];
  #followUps: UserMessage[] = [];
  #run: { controller: AbortController; done: Promise<Message[]> } | undefined;
  #init: AgentInit;
  #config: LoopConfig;
  #registry: ToolRegistry;
  #state: LoopState | undefined;

  /**
   * Builds an agent; use `createAgent` instead, which composes plugins and hooks.
   *
   * @param init What `createAgent` assembled.
   */
  constructor(init: AgentInit) {
    this.#init = init;
    this.#messages = init.messages ? [...init.messages] : [];
    this.#listeners = init.listeners ?? [];
    this.#registry = init.registry ?? new ToolRegistry([{ owner: undefined, tools: init.tools }]);
    // A change applies to a run in progress from its next model call.
    this.#registry.onChange((tools) => {
      if (this.#state) this.#state.tools = tools;
    });
    const steeringMode = init.steeringMode ?? "one-at-a-time";
    const followUpMode = init.followUpMode ?? "one-at-a-time";
    this.#config = {
      ...init.config,
      getSteeringMessages: () => drain(this.#steering, steeringMode),
      getFollowUpMessages: () => drain(this.#followUps, followUpMode),
    };
  }

  /** The whole transcript (read-only; it grows as runs append to it). */
  get messages(): readonly Message[] {
    return this.#messages;
  }

  /** The agent's tools, plugins' tools included. */
  get tools(): readonly AgentTool[] {
    return this.#registry.tools;
  }

  /**
   * Replaces the agent's own tools (those given to `createAgent({ tools })`; plugins keep
   * theirs). Meant for between runs; during a run the change applies from its next model
   * call. To choose tools per model call, use `prepareTurn`.
   *
   * @param tools The agent's own tools from now on.
   * @throws {Error} When a name clashes with a plugin's tool, or a schema is invalid
   * (nothing changes then).
   */
  setTools(tools: readonly AgentTool[]): void {
    this.#registry.set(undefined, tools);
  }

  /** The system prompt sent with every turn. */
  get systemPrompt(): string {
    return this.#init.systemPrompt;
  }

  /** Whether a run is in progress. */
  get isRunning(): boolean {
    return this.#run !== undefined;
  }

  /**
   * Listens to every event of every run.
   *
   * @param listener Receives events synchronously, in order.
   * @returns A function that stops listening.
   */
  subscribe(listener: AgentListener): () => void {
    this.#listeners = [...this.#listeners, listener];
    return () => {
      this.#listeners = this.#listeners.filter((l) => l !== listener);
    };
  }

  /**
   * Sends a prompt and runs until the model is done. Resolves after `agent_end`; never
   * rejects for model, tool or hook failures (those are messages).
   *
   * @param input Text, content blocks, or a user message.
   * @returns The messages this run added (the prompt first).
   * @throws {Error} (as a rejection) When a run is already in progress (use `steer` or
   * `followUp`).
   */
  prompt(input: PromptInput): Promise<Message[]> {
    return this.#start([toUserMessage(input)], "prompt");
  }

  /**
   * Runs again from the transcript as it is (after an error, an abort, or `maxTurns`).
   *
   * @returns The messages this run added.
   * @throws {Error} (as a rejection) When a run is already in progress, or there is nothing
   * to continue.
   */
  continue(): Promise<Message[]> {
    if (this.#messages.length === 0) {
      return Promise.reject(new Error("Cannot continue: the transcript is empty"));
    }
    return this.#start([], "continue");
  }

  /** Queues a message to inject after the current turn's tool calls finish. */
  steer(input: PromptInput): void {
    this.#steering.push(toUserMessage(input));
  }

  /** Queues a message to run once the agent would otherwise stop. */
  followUp(input: PromptInput): void {
    this.#followUps.push(toUserMessage(input));
  }

  /** Aborts the current run: the model stream and running tools are cancelled, no new call starts. */
  abort(): void {
    this.#run?.controller.abort(new DOMException("The run was aborted", "AbortError"));
  }

  /** Resolves when no run is in progress. */
  async waitForIdle(): Promise<void> {
    await this.#run?.done;
  }

  /** Clears the transcript and both queues. @throws {Error} While a run is in progress. */
  reset(): void {
    if (this.#run) throw new Error("Cannot reset: a run is in progress");
    this.#messages = [];
    this.#steering = [];
    this.#followUps = [];
  }

  /** Aborts any run and releases the plugins' and model's processes and connections. */
  async dispose(): Promise<void> {
    this.abort();
    await this.waitForIdle();
    await this.#init.dispose?.();
  }

  #emit = (event: AgentEvent): void => {
    const listeners = this.#listeners;
    for (let i = 0; i < listeners.length; i++) {
      try {
        const returned: unknown = listeners[i](event);
        if (isPromiseLike(returned)) {
          returned.then(undefined, (error) => reportListenerError(event, error));
        }
      } catch (error) {
        reportListenerError(event, error);
      }
    }
  };

  #start(prompts: Message[], verb: string): Promise<Message[]> {
    if (this.#run) {
      return Promise.reject(
        new Error(
          `Cannot ${verb}: a run is in progress; use steer() or followUp() to queue a message`,
        ),
      );
    }
    const controller = new AbortController();
    const state: LoopState = {
      systemPrompt: this.#init.systemPrompt,
      messages: this.#messages,
      tools: this.#registry.tools,
    };
    this.#state = state;
    const done = runLoop({
      state,
      prompts,
      config: this.#config,
      signal: controller.signal,
      emit: this.#emit,
    }).finally(() => {
      this.#run = undefined;
      this.#state = undefined;
    });
    this.#run = { controller, done };
    return done;
  }
}
