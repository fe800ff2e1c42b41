/**
 * The `Agent`: owns the transcript, runs the loop, fans out events.
 *
 * @module
 */

import type { AgentEvent } from "../core/agent_event.ts";
import { indexTools, type LoopConfig } from "../core/loop_config.ts";
import { type Message, toolCallsOf, type UserMessage } from "../core/messages.ts";
import { keepLayout } from "../core/keep_layout.ts";
import type { Model } from "../core/model.ts";
import { AssistantMessageStream } from "../core/assistant_message_stream.ts";
import { type LoopState, runLoop } from "../core/run_loop.ts";
import type { AgentTool } from "../core/tool.ts";
import type { Interruption } from "../core/interruption.ts";
import type { ToolCallPreparation } from "../core/prepare_tool_call.ts";
import {
  type AgentState,
  type Decision,
  type PendingApproval,
  pendingApprovals,
  type StickyDecision,
  withSticky,
} from "./agent_state.ts";
import { BatchTracker, runningCalls } from "./batch_tracker.ts";
import { notifyListeners } from "./notify_listeners.ts";
import { closeBatch, resolveDecisions } from "./resolve_decisions.ts";
import { ToolRegistry } from "./tool_registry.ts";
import {
  type AgentInit,
  type AgentListener,
  ANSWERED_REASON,
  drain,
  type PromptInput,
  RACED_REASON,
  toUserMessage,
  waitingReason,
} from "./agent_init.ts";

export type { AgentInit, AgentListener, PromptInput, QueueMode } from "./agent_init.ts";

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
  static {
    // Never prompted: kept only for its layout (see keepLayout).
    const model: Model = {
      provider: "none",
      id: "none",
      stream: () => new AssistantMessageStream(),
    };
    keepLayout(new Agent({ systemPrompt: "", tools: [], config: { model } }));
  }
  #messages: Message[];
  #listeners: readonly AgentListener[];
  #steering: UserMessage[] = [];
  #followUps: UserMessage[] = [];
  #run: { controller: AbortController; done: Promise<Message[]> } | undefined;
  #init: AgentInit;
  #config: LoopConfig;
  #registry: ToolRegistry;
  #state: LoopState | undefined;
  /** The batch a run stopped in, waiting for decisions (or left open by a stopped process). */
  #interrupted: Interruption | undefined;
  #pending: PendingApproval[] = [];
  /** Calls of the open batch that were executing when the state was taken. */
  #running: string[] = [];
  #sticky: StickyDecision[] = [];
  /** The batch in flight, followed from events, so `state()` is right mid-run. */
  #batch = new BatchTracker();

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
    const config = init.config;
    // Every field named, not spread: one layout for every agent's config (see keepLayout).
    this.#config = {
      model: config.model,
      toolExecution: config.toolExecution,
      maxConcurrency: config.maxConcurrency,
      toolTimeoutMs: config.toolTimeoutMs,
      hookTimeoutMs: config.hookTimeoutMs,
      maxResultChars: config.maxResultChars,
      maxTurns: config.maxTurns,
      transformContext: config.transformContext,
      prepareTurn: config.prepareTurn,
      // A sticky "always" turns a hook's defer into a pass.
      beforeToolCall: withSticky(config.beforeToolCall, () => this.#sticky),
      verifyToolCall: withSticky(config.verifyToolCall, () => this.#sticky),
      afterToolCall: config.afterToolCall,
      shouldStopAfterTurn: config.shouldStopAfterTurn,
      getSteeringMessages: () => drain(this.#steering, steeringMode),
      getFollowUpMessages: () => drain(this.#followUps, followUpMode),
    } satisfies Record<keyof LoopConfig, unknown>;
    const restore = init.restore;
    if (restore) this.#sticky = structuredClone(restore.sticky);
    // Only a transcript ending in tool calls has an open batch to go on with.
    if (restore && toolCallsOf(this.#messages.at(-1)).length > 0) {
      this.#pending = structuredClone(restore.pending);
      this.#running = [...restore.running];
      this.#interrupted = {
        results: structuredClone(restore.completed),
        pending: this.#pending.map(({ argsHash: _, ...call }) => call),
      };
      if (restore.turnTools) this.#interrupted.tools = [...restore.turnTools];
    }
  }

  /**
   * The calls waiting for a person's decision (tool, call id, final arguments and their
   * hash, who asks and why). Empty unless the last run stopped at a deferred call.
   */
  get pending(): readonly PendingApproval[] {
    return this.#pending;
  }

  /**
   * The run as plain JSON: the transcript, the pending calls, the open batch's finished
   * results, the calls executing right now (if taken mid-run), the sticky decisions, and
   * which model and tools it belongs to. `JSON.stringify` it, store it, and give it to
   * `resumeAgent` in any process.
   *
   * @returns A deep copy, JSON-clean.
   */
  state(): AgentState {
    const batch = this.#batch.current; // defined only while a batch is in flight
    const turnTools = batch ? this.#state?.turnTools : this.#interrupted?.tools;
    // Through JSON, so what you get is exactly what a store gives back.
    return JSON.parse(JSON.stringify({
      version: 1 as const,
      messages: [...this.#messages],
      pending: this.#pending,
      completed: batch ? batch.results : this.#interrupted?.results ?? [],
      running: batch ? runningCalls(batch) : this.#running,
      sticky: this.#sticky,
      ...(turnTools ? { turnTools } : {}),
      config: {
        provider: this.#init.config.model.provider,
        model: this.#init.config.model.id,
        tools: this.#registry.tools.map((tool) => tool.name),
      },
    }));
  }

  /**
   * Goes on with a run that stopped at deferred calls (or whose process stopped mid-batch):
   * approved calls run with exactly their pending arguments, rejected ones get an error
   * result with the person's reason, calls that were executing are reported as "may have
   * completed" and not run again, finished calls keep their results; then the loop goes on.
   * When nothing is open but the transcript waits for the model, it continues.
   *
   * @param decisions One per pending call (see `approveCall`, `rejectCall`).
   * @returns The messages this run added.
   * @throws {Error} (as a rejection) When a run is in progress, there is nothing to
   * resume, a pending call has no decision, a decision names a call that is not pending,
   * or an approval's hash does not match the pending arguments (nothing runs then, and
   * the calls stay pending).
   */
  async resume(decisions: readonly Decision[] = []): Promise<Message[]> {
    if (this.#run) throw new Error("Cannot resume: a run is in progress");
    const last = this.#messages.at(-1);
    const calls = toolCallsOf(last);
    const done = new Set(this.#interrupted?.results.map((r) => r.toolCallId));
    const open = calls.filter((call) => !done.has(call.id));
    if (open.length === 0) {
      if (last && last.role !== "assistant") return this.#start([], "resume");
      throw new Error("Cannot resume: no tool call is waiting and the run had finished");
    }
    const pending = this.#pending; // replaced meanwhile by another resume or an abort
    const batch = { open, pending, running: this.#running };
    const tools = indexTools(this.#registry.tools);
    const { resolved, sticky } = await resolveDecisions(batch, decisions, tools);
    if (this.#run || this.#pending !== pending) throw new Error(RACED_REASON);
    this.#sticky.push(...sticky);
    this.#pending = [];
    this.#running = [];
    return this.#start([], "resume", resolved);
  }

  /** Closes an open batch nobody will decide: every open call gets an error result. */
  #abandon(): void {
    const calls = toolCallsOf(this.#messages.at(-1));
    const finished = this.#interrupted?.results ?? [];
    this.#messages.push(
      ...closeBatch(calls, finished, { pending: this.#pending, running: this.#running }),
    );
    this.#interrupted = undefined;
    this.#pending = [];
    this.#running = [];
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
   * @throws {Error} When a name clashes with a plugin's tool, a sandboxed plugin's own-scope
   * hooks claim the name, or a schema is invalid (nothing changes then).
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
   * to continue: the transcript is empty, or ends with the model's answer (`stopReason:
   * "stop"`) and no message is queued.
   */
  continue(): Promise<Message[]> {
    const last = this.#messages.at(-1);
    if (!last) return Promise.reject(new Error("Cannot continue: the transcript is empty"));
    // As pi's: after the model's own answer only a queued message goes on (steering, which the
    // loop takes at its start; else follow-ups, as the prompt).
    const answered = last.role === "assistant" && last.stopReason === "stop";
    if (!this.#run && answered && this.#steering.length === 0) {
      const followUps = this.#config.getFollowUpMessages!();
      if (followUps.length === 0) return Promise.reject(new Error(ANSWERED_REASON));
      return this.#start(followUps, "continue");
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

  /**
   * Aborts the current run: the model stream and running tools are cancelled, no new call
   * starts. With no run in progress but calls waiting for a decision, those calls get an
   * error result (`…aborted while the call waited for approval`) and the transcript is
   * whole again.
   */
  abort(): void {
    if (this.#run) {
      this.#run.controller.abort(new DOMException("The run was aborted", "AbortError"));
    } else if (this.#interrupted || this.#running.length > 0) this.#abandon();
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
    this.#interrupted = undefined;
    this.#pending = [];
    this.#running = [];
  }

  /** Aborts any run and releases the plugins' and model's processes and connections. */
  async dispose(): Promise<void> {
    this.abort();
    await this.waitForIdle();
    await this.#init.dispose?.();
  }

  #emit = (event: AgentEvent): void => {
    this.#batch.track(event);
    notifyListeners(this.#listeners, event);
  };

  #start(
    prompts: Message[],
    verb: string,
    resume?: ReadonlyMap<string, ToolCallPreparation>,
  ): Promise<Message[]> {
    if (this.#run) {
      return Promise.reject(
        new Error(
          `Cannot ${verb}: a run is in progress; use steer() or followUp() to queue a message`,
        ),
      );
    }
    if (!resume && (this.#pending.length > 0 || this.#interrupted || this.#running.length > 0)) {
      return Promise.reject(new Error(waitingReason(verb, this.#pending.length)));
    }
    const controller = new AbortController();
    const state: LoopState = {
      systemPrompt: this.#init.systemPrompt,
      messages: this.#messages,
      tools: this.#registry.tools,
      interrupted: this.#interrupted,
    };
    this.#state = state;
    // A resumed batch is in flight from the start, with the results it already had.
    if (resume) this.#batch.begin(this.#interrupted?.results ?? []);
    else this.#batch.clear();
    this.#interrupted = undefined;
    const done = runLoop({
      state,
      prompts,
      config: this.#config,
      signal: controller.signal,
      emit: this.#emit,
      resume,
    }).then(async (messages) => {
      const interrupted = state.interrupted;
      if (interrupted) {
        this.#interrupted = interrupted;
        this.#pending = await pendingApprovals(interrupted.pending);
        // Aborted after its batch had ended (a listener of its last events): the calls do
        // not wait, as after abort() between runs.
        if (controller.signal.aborted) this.#abandon();
      }
      return messages;
    }).finally(() => {
      this.#run = undefined;
      this.#state = undefined;
      this.#batch.clear();
    });
    this.#run = { controller, done };
    return done;
  }
}
