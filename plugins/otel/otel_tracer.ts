/**
 * An {@linkcode AgentTracer} that makes OpenTelemetry spans, following the GenAI semantic
 * conventions: `invoke_agent` for a run, `chat` for each model call, `execute_tool` for
 * each tool call, with a span per turn and, inside each call, its prepare gates, each
 * plugin's hooks and the tool's execution.
 *
 * @module
 */

import {
  type Attributes,
  type Context,
  context as otelContext,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  type Tracer,
} from "@opentelemetry/api";
import type { AgentEvent } from "../../core/agent_event.ts";
import type { AssistantMessage, Message, Usage } from "../../core/messages.ts";
import type { ToolResult } from "../../core/tool.ts";
import type {
  AgentTracer,
  EndStep,
  StepOutcome,
  TraceStep,
} from "../../sdk/telemetry/agent_tracer.ts";
import { toolOutcome } from "../../sdk/telemetry/tool_outcome.ts";
import { thrownText } from "../../core/thrown_text.ts";
import { TOOL_NAME_PATTERN } from "../../sdk/define_tool.ts";

/**
 * An OpenTelemetry `Tracer` (from `@opentelemetry/api`), described by the one method
 * used, so this module's public types stay its own.
 */
export interface OtelTracerLike {
  /** OpenTelemetry's `Tracer.startSpan(name, options, context)`. */
  startSpan(name: string, options?: object, context?: object): object;
}

/** What {@linkcode otelTracer} takes. */
export interface OtelTracerOptions {
  /** The tracer to use (default: `trace.getTracer("tack")`, which Deno's exporter serves). */
  tracer?: OtelTracerLike;
  /** `gen_ai.agent.name` (default `"tack"`). */
  agentName?: string;
  /**
   * Record the model's text, each call's arguments and each result as span attributes
   * (`gen_ai.output.messages`, `gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`).
   * Off by default: they may hold secrets.
   */
  recordContent?: boolean;
}

interface CallSpans {
  span: Span;
  context: Context;
  prepare?: Span;
  open: Set<Span>;
}

interface RunSpans {
  span: Span;
  context: Context;
  turn?: { span: Span; context: Context; index: number };
  turns: number;
  chat?: Span;
  /** When the next model call starts: after the turn's injected messages. */
  chatStart?: number;
  chatDone: boolean;
  calls: Map<string, CallSpans>;
  usage: { input: number; output: number };
  last?: AssistantMessage;
}

function now(): number {
  return performance.timeOrigin + performance.now();
}

function errorText(error: unknown): string {
  return thrownText(error);
}

function resultText(result: ToolResult): string {
  return result.content.map((part) => part.type === "text" ? part.text : `[${part.type}]`)
    .join("\n");
}

function usageAttributes(usage: { input: number; output: number }): Attributes {
  return { "gen_ai.usage.input_tokens": usage.input, "gen_ai.usage.output_tokens": usage.output };
}

function outputMessages(message: AssistantMessage): string {
  const parts = message.content.map((block) =>
    block.type === "text"
      ? { type: "text", content: block.text }
      : block.type === "thinking"
      ? { type: "reasoning", content: block.thinking }
      : { type: "tool_call", id: block.id, name: block.name, arguments: block.arguments }
  );
  return JSON.stringify([{ role: "assistant", parts, finish_reason: message.stopReason }]);
}

function isAssistant(message: Message): message is AssistantMessage {
  return message.role === "assistant";
}

/**
 * A tool's name as spans show it: the model chooses it when no such tool exists, so one that
 * could not be a tool's (2 MB, or a key with `=` in it) is not exported as it came.
 */
function shownToolName(name: string): string {
  return TOOL_NAME_PATTERN.test(name) ? name : "invalid_tool_name";
}

/** A call id as spans show it: the model's (or its provider's), cut to 128 characters. */
function shownCallId(id: string): string {
  return id.length <= 128 ? id : `${id.slice(0, 128)}…`;
}

/**
 * Creates a tracer for `createAgent({ trace })`. Spans go to the tracer you pass, or to
 * the global one: run with `OTEL_DENO=true` and Deno's built-in exporter sends them over
 * OTLP with no other setup. A run's span is a child of whatever span is active when the
 * run starts. One tracer serves one agent.
 *
 * @param options The tracer, the agent's name, and whether to record content.
 * @returns The tracer.
 *
 * @example Spans of a one-turn run, in memory
 * ```ts
 * import { otelTracer } from "@tack/agent/plugins/otel";
 * import { createAgent, scriptedModel, text } from "@tack/agent";
 * import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
 * import { deepEqual } from "node:assert/strict";
 *
 * const exporter = new InMemorySpanExporter();
 * const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
 * const agent = createAgent({
 *   model: scriptedModel([[text("hi")]]),
 *   trace: otelTracer({ tracer: provider.getTracer("test") }),
 * });
 * await agent.prompt("hello");
 * deepEqual(exporter.getFinishedSpans().map((s) => s.name), ["chat scripted", "turn 1", "invoke_agent tack"]);
 * ```
 */
export function otelTracer(options: OtelTracerOptions = {}): AgentTracer {
  const agentName = options.agentName ?? "tack";
  const record = options.recordContent === true;
  let tracer = options.tracer as Tracer | undefined;
  let run: RunSpans | undefined;

  const start = (name: string, parent: Context, attributes: Attributes, more: {
    kind?: SpanKind;
    startTime?: number;
  } = {}): Span => {
    tracer ??= trace.getTracer("tack");
    return tracer.startSpan(
      name,
      { attributes, kind: more.kind ?? SpanKind.INTERNAL, ...more },
      parent,
    );
  };
  const fail = (span: Span, type: string, message: string) => {
    span.setAttribute("error.type", type);
    span.setStatus({ code: SpanStatusCode.ERROR, message });
  };

  const startChat = (r: RunSpans, message: AssistantMessage) => {
    const parent = r.turn?.context ?? r.context;
    r.chat = start(`chat ${message.model}`, parent, {
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": message.provider,
      "gen_ai.request.model": message.model,
    }, { kind: SpanKind.CLIENT, startTime: r.chatStart });
  };
  const endChat = (r: RunSpans, message: AssistantMessage) => {
    if (!r.chat) startChat(r, message);
    const chat = r.chat!;
    const usage: Usage = message.usage;
    chat.setAttributes({
      "gen_ai.response.model": message.model,
      "gen_ai.response.finish_reasons": [message.stopReason],
      ...usageAttributes(usage),
    });
    if (record) chat.setAttribute("gen_ai.output.messages", outputMessages(message));
    if (message.stopReason === "error" || message.stopReason === "aborted") {
      fail(
        chat,
        message.stopReason === "aborted" ? "aborted" : "model_error",
        message.errorMessage ?? "",
      );
    }
    chat.end();
    r.chat = undefined;
    r.chatDone = true;
    r.usage.input += usage.input;
    r.usage.output += usage.output;
    r.last = message;
  };

  const onEvent = (event: AgentEvent): void => {
    if (event.type === "agent_start") {
      const span = start(`invoke_agent ${agentName}`, otelContext.active(), {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": agentName,
      });
      run = {
        span,
        context: trace.setSpan(otelContext.active(), span),
        turns: 0,
        chatDone: false,
        calls: new Map(),
        usage: { input: 0, output: 0 },
      };
      return;
    }
    const r = run;
    if (!r) return;
    switch (event.type) {
      case "turn_start": {
        const index = ++r.turns;
        const span = start(`turn ${index}`, r.context, { "tack.turn.index": index });
        r.turn = { span, context: trace.setSpan(r.context, span), index };
        r.chatStart = now();
        r.chatDone = false;
        return;
      }
      case "message_start":
        if (isAssistant(event.message) && !r.chatDone && !r.chat) startChat(r, event.message);
        return;
      case "message_end":
        if (isAssistant(event.message) && !r.chatDone) endChat(r, event.message);
        else if (!r.chatDone) r.chatStart = now();
        return;
      case "tool_execution_start": {
        const parent = r.turn?.context ?? r.context;
        const name = shownToolName(event.toolName);
        const attributes: Attributes = {
          "gen_ai.operation.name": "execute_tool",
          "gen_ai.tool.name": name,
          "gen_ai.tool.call.id": shownCallId(event.toolCallId),
          "gen_ai.tool.type": "function",
        };
        if (record) attributes["gen_ai.tool.call.arguments"] = JSON.stringify(event.args);
        const span = start(`execute_tool ${name}`, parent, attributes);
        const context = trace.setSpan(parent, span);
        const prepare = start("prepare", context, { "tack.step": "prepare" });
        r.calls.set(event.toolCallId, { span, context, prepare, open: new Set([prepare]) });
        return;
      }
      case "tool_execution_end": {
        const call = r.calls.get(event.toolCallId);
        if (!call) return;
        r.calls.delete(event.toolCallId);
        endOpenSteps(call);
        const outcome = toolOutcome(event);
        call.span.setAttribute("tack.tool.outcome", outcome);
        if (event.blockedBy !== undefined) {
          call.span.setAttribute("tack.blocked_by", event.blockedBy);
        }
        if (event.rewrittenBy) call.span.setAttribute("tack.rewritten_by", [...event.rewrittenBy]);
        if (record) call.span.setAttribute("gen_ai.tool.call.result", resultText(event.result));
        if (outcome !== "ok") {
          // A tool's error result is a result: its text (a thrown message, or the invalid
          // arguments quoted) only with recordContent. Tack's own texts (a block's reason, a
          // timeout) are kept.
          const type = outcome === "error" ? "tool_error" : outcome;
          fail(call.span, type, record || outcome !== "error" ? resultText(event.result) : type);
        }
        call.span.end();
        return;
      }
      case "turn_end": {
        const turn = r.turn;
        if (!turn) return;
        turn.span.setAttributes(usageAttributes(event.message.usage));
        if (event.message.stopReason === "error" || event.message.stopReason === "aborted") {
          fail(
            turn.span,
            event.message.stopReason === "aborted" ? "aborted" : "model_error",
            event.message.errorMessage ?? "",
          );
        }
        turn.span.end();
        r.turn = undefined;
        return;
      }
      case "agent_end": {
        // Calls still open wait for a decision (deferred): their spans end with the run.
        for (const call of r.calls.values()) {
          endOpenSteps(call);
          call.span.setAttribute("tack.tool.outcome", "deferred");
          call.span.end();
        }
        r.chat?.end();
        r.turn?.span.end();
        r.span.setAttributes(usageAttributes(r.usage));
        const last = r.last;
        if (last) r.span.setAttribute("gen_ai.request.model", last.model);
        if (last?.stopReason === "error" || last?.stopReason === "aborted") {
          fail(
            r.span,
            last.stopReason === "aborted" ? "aborted" : "model_error",
            last.errorMessage ?? "",
          );
        }
        r.span.end();
        run = undefined;
        return;
      }
    }
  };

  /**
   * Ends a call's open steps: its prepare span as finished (a blocked or deferred call
   * ends there), any other as `tack.step.unfinished` (a hook or execute that never settled).
   */
  const endOpenSteps = (call: CallSpans): void => {
    for (const open of call.open) {
      if (open !== call.prepare) open.setAttribute("tack.step.unfinished", true);
      open.end();
    }
    call.open.clear();
    call.prepare = undefined;
  };

  const startStep = (step: TraceStep): EndStep => {
    const call = run?.calls.get(step.toolCallId);
    if (!call) return () => {};
    let parent = call.context;
    let name: string;
    const attributes: Attributes = {};
    if (step.kind === "hook") {
      name = `${step.stage} ${step.owner}`;
      attributes["tack.step"] = "hook";
      attributes["tack.hook.stage"] = step.stage;
      attributes["tack.plugin.name"] = step.owner;
      if (step.stage !== "afterToolCall" && call.prepare) {
        parent = trace.setSpan(call.context, call.prepare);
      }
    } else {
      if (call.prepare) {
        call.prepare.end();
        call.open.delete(call.prepare);
        call.prepare = undefined;
      }
      name = `execute ${step.toolName}`;
      attributes["tack.step"] = "execute";
      if (step.plugin) attributes["tack.plugin.name"] = step.plugin;
    }
    const span = start(name, parent, attributes);
    call.open.add(span);
    return (outcome: StepOutcome) => {
      if (!call.open.delete(span)) return;
      if (outcome.verdict) span.setAttribute("tack.hook.verdict", outcome.verdict);
      if (outcome.error !== undefined) {
        const type = step.kind === "hook" ? "hook_error" : "tool_error";
        // What a tool or hook threw may quote the arguments: its message only with recordContent.
        const error = outcome.error;
        span.recordException(
          record
            ? (error instanceof Error ? error : errorText(error))
            : { name: error instanceof Error ? error.name : typeof error, message: type },
        );
        fail(span, type, record ? errorText(error) : type);
      }
      span.end();
    };
  };

  return { onEvent, startStep };
}
