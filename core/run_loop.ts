/**
 * The agent loop: stream an assistant message, run its tool calls, append the results,
 * and go again until the model stops calling tools.
 *
 * @module
 */

import type { AgentEventSink } from "./agent_event.ts";
import { CallWatch } from "./call_watch.ts";
import { executeToolCalls } from "./execute_tool_calls.ts";
import { type Interruption, toPendingToolCall } from "./interruption.ts";
import { boundHook } from "./bound_hook.ts";
import { keepLayout } from "./keep_layout.ts";
import {
  DEFAULT_MAX_TURNS,
  indexTools,
  type LoopConfig,
  type ToolIndex,
  turnHookTimeoutMs,
} from "./loop_config.ts";
import {
  type AssistantMessage,
  type Message,
  type ToolCall,
  toolCallsOf,
  type ToolResultMessage,
} from "./messages.ts";
import type { ToolCallPreparation } from "./prepare_tool_call.ts";
import type { AgentTool } from "./tool.ts";
import {
  buildTurn,
  createAssistantErrorMessage,
  streamAssistantResponse,
  type Turn,
} from "./turn.ts";

/** The state a run owns: the loop appends to `messages` and nothing else writes it. */
export interface LoopState {
  /** The system prompt sent every turn. */
  systemPrompt: string;
  /** The transcript; the loop appends to it. */
  messages: Message[];
  /** The tools of the run; read before each model call, so a change applies from the next. */
  tools: readonly AgentTool[];
  /** Set by the loop when a batch had deferred calls; the run stopped there. */
  interrupted?: Interruption;
  /**
   * Set by the loop for the turn in progress when `prepareTurn` chose its tools: their
   * names, so a state taken mid-batch resumes with them (see `Interruption.tools`).
   */
  turnTools?: string[];
}

/** What {@linkcode runLoop} runs on. */
export interface RunLoopInput {
  /** The state the run owns. */
  state: LoopState;
  /** Messages that start the run (usually one user message); may be empty to continue. */
  prompts: Message[];
  /** The model, limits and hooks. */
  config: LoopConfig;
  /** Aborts the run. */
  signal: AbortSignal;
  /** Receives every event. */
  emit: AgentEventSink;
  /** `state.tools` indexed by name; built when omitted (and again when `state.tools` changes). */
  toolIndex?: ToolIndex;
  /**
   * Resume the interrupted batch (`state.interrupted`, the calls of the transcript's last
   * assistant message): its finished results are kept, the calls decided here run as
   * given (approved: `prepared`; rejected: `immediate`), any other open call is prepared
   * as usual; then the loop goes on.
   */
  resume?: ReadonlyMap<string, ToolCallPreparation>;
}

/**
 * The text of the message that ends a run at its turn cap.
 *
 * @param maxTurns The cap.
 * @returns The message.
 */
export function maxTurnsMessage(maxTurns: number): string {
  return `Stopped after ${maxTurns} model turns (maxTurns) before the model finished. ` +
    `Send another prompt to let it go on, or raise maxTurns.`;
}

/**
 * Asks `shouldStopAfterTurn`, bounded like every hook (the agent's `hookTimeoutMs`, else its
 * `toolTimeoutMs`). A hook that throws, does not answer in time or meets the run's abort
 * stops the run: it fails closed.
 */
async function stopAfterTurn(
  input: RunLoopInput,
  message: AssistantMessage,
  toolResults: ToolResultMessage[],
  newMessages: Message[],
): Promise<boolean> {
  const { config, state, signal } = input;
  const limit = turnHookTimeoutMs(config);
  const outcome = await boundHook(
    () => config.shouldStopAfterTurn!({ message, toolResults, context: state, newMessages }),
    signal,
    limit,
  );
  return outcome.kind !== "value" || outcome.value === true;
}

function inCallOrder(
  toolCalls: readonly ToolCall[],
  results: ToolResultMessage[],
): ToolResultMessage[] {
  const order = new Map(toolCalls.map((call, i) => [call.id, i]));
  return results.sort((a, b) => (order.get(a.toolCallId) ?? 0) - (order.get(b.toolCallId) ?? 0));
}

/**
 * Runs the loop until the model answers without tool calls (and no follow-up is
 * queued), a turn fails, the run is aborted (it then ends with an assistant message whose
 * `stopReason` is `"aborted"`, also when the abort came during tool calls, though the model
 * is not called again), `shouldStopAfterTurn` says stop,
 * `maxTurns` is reached, or a hook deferred a call (then `state.interrupted` says which
 * calls wait, once the batch's other calls finished; pass `resume` to go on; a batch
 * aborted while it ran gives its deferred calls error results instead, but an abort that
 * arrives after the batch ended leaves the interruption for the caller to close). Appends
 * every new message to `state.messages` and returns them.
 * Never rejects for model, tool or hook failures.
 *
 * @param input The state, prompts, config, abort signal and event sink.
 * @returns The messages this run added, prompts included.
 *
 * @example One turn on a scripted model
 * ```ts
 * import { runLoop, scriptedModel, text } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * const state = { systemPrompt: "", messages: [], tools: [] };
 * const added = await runLoop({
 *   state,
 *   prompts: [{ role: "user", content: "hi", timestamp: Date.now() }],
 *   config: { model: scriptedModel([[text("hello")]]) },
 *   signal: new AbortController().signal,
 *   emit: () => {},
 * });
 * equal(added.length, 2);
 * ```
 */
export async function runLoop(input: RunLoopInput): Promise<Message[]> {
  // One watch for the run: one abort listener, one timer for the earliest call deadline.
  const watch = new CallWatch(input.signal);
  try {
    return await loop(input, watch);
  } finally {
    watch.dispose();
  }
}

/**
 * One run of the loop: its input and watch, and the messages it added. Its methods would be
 * closures inside `loop`, but V8 drops the code it optimized for a closure at a full GC that
 * finds none alive, and every run after it would pay to optimize them again (see
 * keep_layout.ts).
 */
class Run {
  static {
    const state = { systemPrompt: "", messages: [], tools: [] };
    const input = { state, prompts: [], config: {}, signal: undefined, emit: () => {} };
    keepLayout(new Run(input as unknown as RunLoopInput, undefined!));
  }
  readonly input: RunLoopInput;
  readonly watch: CallWatch;
  readonly newMessages: Message[] = [];
  /** Steering or follow-up messages to inject before the next model call. */
  queued: readonly Message[] = [];
  #indexed: { tools: readonly AgentTool[]; index: ToolIndex };

  constructor(input: RunLoopInput, watch: CallWatch) {
    this.input = input;
    this.watch = watch;
    const { tools } = input.state;
    this.#indexed = { tools, index: input.toolIndex ?? indexTools(tools) };
  }

  /** `tools` by name; the index of the last list asked for is kept. */
  indexFor(tools: readonly AgentTool[]): ToolIndex {
    if (tools !== this.#indexed.tools) this.#indexed = { tools, index: indexTools(tools) };
    return this.#indexed.index;
  }

  append(message: Message): void {
    this.input.state.messages.push(message);
    this.newMessages.push(message);
  }

  inject(messages: readonly Message[]): void {
    for (const message of messages) {
      this.input.emit({ type: "message_start", message });
      this.input.emit({ type: "message_end", message });
      this.append(message);
    }
  }

  /** Ends the turn with an assistant message the loop makes itself (aborted, turn cap, failed turn). */
  closeTurnWith(message: AssistantMessage): void {
    this.inject([message]);
    this.input.emit({ type: "turn_end", message, toolResults: [] });
  }

  end(): Message[] {
    this.input.emit({ type: "agent_end", messages: this.newMessages });
    return this.newMessages;
  }
}

/**
 * Runs the message's calls that have no result yet and ends the turn: "more" when the model
 * should see the results, "stop" when it should not, "end" to end the run. `kept` holds the
 * results from before a resume (none for a new turn).
 */
async function finishTurn(
  run: Run,
  message: AssistantMessage,
  kept: ToolResultMessage[],
  turn: Turn,
  resolved?: ReadonlyMap<string, ToolCallPreparation>,
): Promise<"more" | "stop" | "end"> {
  const { input } = run;
  const { state, config, signal, emit } = input;
  const toolCalls = toolCallsOf(message);
  // Only a resumed batch keeps results; a new one skips the search (a closure per call).
  const open = kept.length === 0
    ? toolCalls
    : toolCalls.filter((call) => !kept.some((r) => r.toolCallId === call.id));
  let toolResults = [...kept];
  let more = toolCalls.length > 0;
  if (open.length > 0) {
    const batch = await executeToolCalls({
      assistantMessage: message,
      toolCalls: open,
      tools: turn.tools,
      context: turn.context,
      config: turn.config,
      signal,
      emit,
      watch: run.watch,
      resolved,
    });
    // The batch's results, merged in call order with those kept from before a resume.
    toolResults = kept.length === 0
      ? batch.messages
      : inCallOrder(toolCalls, [...kept, ...batch.messages]);
    // Calls a hook deferred wait for a decision, and the run stops here (after an abort the
    // batch gave them error results instead, and returns none).
    if (batch.deferred.length > 0) {
      state.interrupted = {
        results: toolResults,
        pending: batch.deferred.map(toPendingToolCall),
      };
      if (state.turnTools) state.interrupted.tools = state.turnTools;
      emit({ type: "turn_end", message, toolResults });
      return "end";
    }
    // Every result asks to stop, those from before an interruption too, or the run goes on.
    more = !(batch.terminate && kept.every((result) => result.terminate === true));
  }
  for (const result of toolResults) run.append(result);
  emit({ type: "turn_end", message, toolResults });
  if (signal.aborted) {
    // The run ends as pi's does (its next model call answers "aborted"), without that call.
    emit({ type: "turn_start" });
    run.closeTurnWith(createAssistantErrorMessage(config, "aborted", "The run was aborted"));
    return "end";
  }
  if (
    config.shouldStopAfterTurn &&
    await stopAfterTurn(input, message, toolResults, run.newMessages)
  ) {
    return "end";
  }
  run.queued = config.getSteeringMessages?.() ?? [];
  return more ? "more" : "stop";
}

async function loop(input: RunLoopInput, watch: CallWatch): Promise<Message[]> {
  const { state, config, emit } = input;
  const run = new Run(input, watch);
  const indexFor = (tools: readonly AgentTool[]) => run.indexFor(tools);
  const maxTurns = config.maxTurns ?? DEFAULT_MAX_TURNS;

  // Bugs of the caller's, thrown before the run starts (no agent_start without agent_end).
  if (input.resume && input.prompts.length > 0) {
    throw new Error("Cannot resume with prompts: a resumed batch goes on from the transcript");
  }
  if (input.resume && state.messages.at(-1)?.role !== "assistant") {
    throw new Error("Cannot resume: the transcript does not end with an assistant message");
  }
  emit(input.resume ? { type: "agent_start", resumed: true } : { type: "agent_start" });
  emit({ type: "turn_start" });
  run.inject(input.prompts);
  let firstTurn = true;
  let turns = 0;
  let moreToolCalls = true;
  if (input.resume) {
    const interrupted = state.interrupted;
    state.interrupted = undefined;
    const message = state.messages.at(-1) as AssistantMessage;
    firstTurn = false;
    // The resumed batch may call the tools its turn offered: the run's, unless prepareTurn
    // chose some.
    const offered = interrupted?.tools && new Set(interrupted.tools);
    const tools = offered ? state.tools.filter((tool) => offered.has(tool.name)) : state.tools;
    const turn = { context: state, tools: indexFor(tools), config };
    state.turnTools = interrupted?.tools;
    const step = await finishTurn(run, message, interrupted?.results ?? [], turn, input.resume);
    if (step === "end") return run.end();
    moreToolCalls = step === "more";
  } else run.queued = config.getSteeringMessages?.() ?? [];

  while (true) {
    while (moreToolCalls || run.queued.length > 0) {
      if (!firstTurn) emit({ type: "turn_start" });
      firstTurn = false;
      run.inject(run.queued);
      run.queued = [];

      if (turns >= maxTurns) {
        run.closeTurnWith(createAssistantErrorMessage(config, "error", maxTurnsMessage(maxTurns)));
        return run.end();
      }
      turns++;

      const turn = await buildTurn(input, turns, indexFor);
      const turnTools = "failed" in turn || turn.tools === indexFor(state.tools)
        ? undefined
        : [...turn.tools.keys()];
      // Written only when it changes: adding the field to a state that lacks it every turn
      // gave the caller's state a layout a full GC could throw away (see keep_layout.ts).
      if (state.turnTools !== turnTools) state.turnTools = turnTools;
      if ("failed" in turn) {
        run.closeTurnWith(turn.failed);
        return run.end();
      }
      const message = await streamAssistantResponse(input, turn);
      run.append(message);
      if (message.stopReason === "error" || message.stopReason === "aborted") {
        emit({ type: "turn_end", message, toolResults: [] });
        return run.end();
      }

      const step = await finishTurn(run, message, [], turn);
      if (step === "end") return run.end();
      moreToolCalls = step === "more";
    }
    const followUps = config.getFollowUpMessages?.() ?? [];
    if (followUps.length === 0) return run.end();
    run.queued = followUps;
  }
}
