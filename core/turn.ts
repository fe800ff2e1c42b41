/**
 * One model call: the turn it runs with (the run's tools and prompt, or what `prepareTurn`
 * chose) and the streaming of the assistant message, as events.
 *
 * @module
 */

import { malformedAssistantMessage } from "./check_assistant_message.ts";
import type { AgentEventSink } from "./agent_event.ts";
import type { AssistantMessageEvent } from "./assistant_message_event.ts";
import {
  type AssistantMessageEventStream,
  AssistantMessageStream,
} from "./assistant_message_stream.ts";
import { boundHook } from "./bound_hook.ts";
import type { AgentContext } from "./hooks.ts";
import { keepLayout } from "./keep_layout.ts";
import { withUniqueToolCallIds } from "./unique_tool_call_ids.ts";
import { type LoopConfig, type ToolIndex, turnHookTimeoutMs } from "./loop_config.ts";
import { type AssistantMessage, emptyUsage, type Message } from "./messages.ts";
import type { AgentTool } from "./tool.ts";
import { thrownText } from "./thrown_text.ts";
import { isPromiseLike } from "./maybe_promise.ts";
import { GAVE_UP, ModelWait } from "./model_wait.ts";

/**
 * The message of a turn the run's abort ended while its model had not: what it streamed (its
 * tool calls are left out later, as they never run), aborted.
 */
function cutOff(config: LoopConfig, relay: Relay): AssistantMessage {
  const message = createAssistantErrorMessage(config, "aborted", "The request was aborted");
  return { ...message, content: relay.content() };
}

/** What a turn reads of the run: its state, config, abort signal and event sink. */
export interface TurnInput {
  /** The run's state: system prompt, transcript and tools. */
  state: { systemPrompt: string; messages: Message[]; tools: readonly AgentTool[] };
  /** The model, limits and hooks. */
  config: LoopConfig;
  /** Aborts the run. */
  signal: AbortSignal;
  /** Receives every event. */
  emit: AgentEventSink;
}

/**
 * An assistant message the loop makes itself (model failure, turn cap).
 *
 * @param config The run's config (for the model's names).
 * @param stopReason `"error"` or `"aborted"`.
 * @param errorMessage What happened, for people.
 * @returns An assistant message with no content.
 */
export function createAssistantErrorMessage(
  config: LoopConfig,
  stopReason: "error" | "aborted",
  errorMessage: string,
): AssistantMessage {
  return {
    role: "assistant",
    content: [],
    stopReason,
    errorMessage,
    usage: emptyUsage(),
    provider: config.model.provider,
    model: config.model.id,
    timestamp: Date.now(),
  };
}

/** What one model call runs with: its context (tools, system prompt), tool index and config. */
export interface Turn {
  /** The system prompt, transcript and active tools, as the model and the hooks see them. */
  context: AgentContext;
  /** The active tools by name. */
  tools: ToolIndex;
  /** The run's config, or a copy with this turn's `maxConcurrency`. */
  config: LoopConfig;
}

/**
 * Relays a model's events as the loop's message events. A class rather than a closure made
 * per turn, so that V8 keeps the code it optimized for it across full GCs (keep_layout.ts).
 */
class Relay {
  static {
    keepLayout(new Relay(() => {}));
  }
  #started = false;
  #partial: AssistantMessage | undefined;
  readonly #emit: AgentEventSink;

  constructor(emit: AgentEventSink) {
    this.#emit = emit;
  }

  /** Whether `message_start` was emitted. */
  get started(): boolean {
    return this.#started;
  }

  /** A copy of the content streamed so far. */
  content(): AssistantMessage["content"] {
    return Array.isArray(this.#partial?.content) ? [...this.#partial.content] : [];
  }

  /** Relays one event; returns the final message when the event ends the stream. */
  take(event: AssistantMessageEvent): AssistantMessage | undefined {
    if (event.type === "done") return event.message;
    if (event.type === "error") return event.error;
    this.#partial = event.partial;
    if (!this.#started) {
      this.#started = true;
      this.#emit({ type: "message_start", message: event.partial });
    }
    if (event.type !== "start") {
      this.#emit({ type: "message_update", message: event.partial, assistantMessageEvent: event });
    }
    return undefined;
  }
}

/**
 * Streams one assistant message: `message_start`, `message_update`s, `message_end`. A
 * failing or throwing model becomes an assistant message with `stopReason` `"error"` (or
 * `"aborted"`), never a rejection. Its tool calls' ids are made unique within it
 * ({@linkcode withUniqueToolCallIds}): results, events and approvals are matched by id.
 *
 * @param input The run's config, signal and event sink.
 * @param turn The context and tools of this model call.
 * @returns The final assistant message.
 */
export async function streamAssistantResponse(
  input: TurnInput,
  turn: Turn,
): Promise<AssistantMessage> {
  const { config, signal, emit } = input;
  const { context } = turn;
  const relay = new Relay(emit);
  let final: AssistantMessage | undefined;
  let messages = context.messages;
  if (config.transformContext) {
    try {
      messages = config.transformContext(context.messages);
    } catch (error) {
      // Its contract says it must not throw: a bug of the host's, told as such.
      const text = thrownText(error);
      final = createAssistantErrorMessage(config, "error", `transformContext failed: ${text}`);
    }
  }
  if (final === undefined) {
    // Each wait also ends a little after the run's abort (ModelWait).
    const wait = new ModelWait(signal);
    try {
      const made = config.model.stream(
        { systemPrompt: context.systemPrompt, messages, tools: context.tools },
        { signal },
      );
      const stream = isPromiseLike<AssistantMessageEventStream>(made) ? await wait.for(made) : made;
      if (stream instanceof AssistantMessageStream) {
        // Our own stream: take what is buffered synchronously, and wait only when it is empty;
        // past the grace, the wait ends it (what it streamed, aborted).
        wait.guard(stream, () => cutOff(config, relay));
        while (final === undefined) {
          const event = stream.shift();
          if (event !== undefined) final = relay.take(event);
          else if (stream.ended) break;
          else await stream.ready();
        }
      } else {
        const events = stream[Symbol.asyncIterator]();
        while (final === undefined) {
          const next = await wait.for(events.next());
          if (next.done) break;
          final = relay.take(next.value);
        }
        // Told it is not read further (a `for await` that breaks does so too).
        if (final !== undefined) await wait.for(events.return?.());
      }
      final ??= await wait.for(stream.result());
    } catch (error) {
      final = error === GAVE_UP ? cutOff(config, relay) : createAssistantErrorMessage(
        config,
        signal.aborted ? "aborted" : "error",
        `Model stream failed: ${thrownText(error)}`,
      );
    } finally {
      wait.dispose();
    }
  }
  const malformed = malformedAssistantMessage(final);
  if (malformed !== undefined) {
    // Its own error text, if it has one, is kept.
    const said = (final as { errorMessage?: unknown } | null)?.errorMessage;
    final = createAssistantErrorMessage(
      config,
      signal.aborted ? "aborted" : "error",
      `Model stream failed: its final message is malformed (${malformed})${
        typeof said === "string" && said !== "" ? `: ${said}` : ""
      }`,
    );
  } else final = withUniqueToolCallIds(final);
  if (final.stopReason === "error" || final.stopReason === "aborted") {
    final = withoutToolCalls(final);
  }
  if (!relay.started) emit({ type: "message_start", message: final });
  emit({ type: "message_end", message: final });
  return final;
}

/**
 * A failed or aborted message without the tool calls it began: they never run, so they would
 * stay unanswered and the next request would hold calls without results (which a provider
 * refuses). Its text and thinking are kept.
 */
function withoutToolCalls(message: AssistantMessage): AssistantMessage {
  if (!message.content.some((block) => block.type === "toolCall")) return message;
  return { ...message, content: message.content.filter((block) => block.type !== "toolCall") };
}

/**
 * Builds the turn: the run's tools and prompt, or what `prepareTurn` chose for this call.
 * Gives an assistant error message instead when the hook fails, times out or the run aborts.
 *
 * @param input The run's state, config and signal.
 * @param number The turn's number (1 for the first model call).
 * @param indexFor Indexes a tool list (cached by the loop).
 * @returns The turn, or the assistant message that ends the run.
 */
export async function buildTurn(
  input: TurnInput,
  number: number,
  indexFor: (tools: readonly AgentTool[]) => ToolIndex,
): Promise<Turn | { failed: AssistantMessage }> {
  const { state, config, signal } = input;
  const hook = config.prepareTurn;
  if (!hook) return { context: state, tools: indexFor(state.tools), config };
  const limit = turnHookTimeoutMs(config);
  const outcome = await boundHook(
    (hookSignal) =>
      hook(
        {
          turn: number,
          systemPrompt: state.systemPrompt,
          tools: state.tools,
          messages: state.messages,
        },
        hookSignal,
      ),
    signal,
    limit,
  );
  const failed = (reason: "error" | "aborted", why: string) => ({
    failed: createAssistantErrorMessage(config, reason, `Cannot start turn ${number}: ${why}`),
  });
  if (outcome.kind === "abort" || signal.aborted) return failed("aborted", "the run was aborted");
  if (outcome.kind === "timeout") {
    return failed("error", `prepareTurn did not answer within ${limit} ms`);
  }
  if (outcome.kind === "error") {
    return failed("error", `prepareTurn failed: ${thrownText(outcome.error)}`);
  }
  const chosen = outcome.value ?? {};
  const tools = chosen.tools ?? state.tools;
  const systemPrompt = chosen.systemPrompt ?? state.systemPrompt;
  return {
    context: { systemPrompt, messages: state.messages, tools },
    tools: indexFor(tools),
    config: chosen.maxConcurrency === undefined
      ? config
      : { ...config, maxConcurrency: chosen.maxConcurrency },
  };
}
