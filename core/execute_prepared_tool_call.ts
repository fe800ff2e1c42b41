/**
 * Runs one prepared call, bounded by its timeout and the run's abort signal.
 *
 * @module
 */

import type { AgentEventSink } from "./agent_event.ts";
import { CallWatch, type StopReason, type Watcher } from "./call_watch.ts";
import { invalidContentReason } from "./check_tool_result.ts";
import { keepLayout } from "./keep_layout.ts";
import { isPromiseLike, type MaybePromise } from "./maybe_promise.ts";
import { createErrorToolResult, errorToToolResult } from "./create_error_tool_result.ts";
import type { PreparedToolCall } from "./prepare_tool_call.ts";
import type { ToolExecuteContext, ToolResult } from "./tool.ts";

/** The raw outcome of running a call, before `afterToolCall`. */
export interface ExecutedToolCall {
  /** The tool's result, or an error result. */
  result: ToolResult;
  /** Whether the result is an error. */
  isError: boolean;
}

/**
 * The error text of a call that was running when the run was aborted.
 *
 * @param toolName The tool that was stopped.
 * @returns The message for its error result.
 */
export function abortedWhileRunningMessage(toolName: string): string {
  return `Tool ${toolName} was aborted while running`;
}

/**
 * The error text of a call that ran past its timeout.
 *
 * @param toolName The tool that was stopped.
 * @param timeoutMs Its timeout.
 * @returns The message for its error result.
 */
export function timedOutMessage(toolName: string, timeoutMs: number): string {
  return `Tool ${toolName} timed out after ${timeoutMs} ms and was stopped`;
}

function checkResult(name: string, value: unknown): ExecutedToolCall {
  const problem = invalidContentReason((value as ToolResult | undefined)?.content);
  if (problem === undefined) return { result: value as ToolResult, isError: false };
  return {
    result: createErrorToolResult(`Tool ${name} returned an invalid result: ${problem}`),
    isError: true,
  };
}

function stoppedResult(toolName: string, why: StopReason, timeoutMs: number): ExecutedToolCall {
  return why === "timeout"
    ? {
      result: createErrorToolResult(timedOutMessage(toolName, timeoutMs), {
        reason: "timeout",
        timeoutMs,
      }),
      isError: true,
    }
    : {
      result: createErrorToolResult(abortedWhileRunningMessage(toolName), { reason: "aborted" }),
      isError: true,
    };
}

/** Where a call's progress updates go. */
interface UpdateSink {
  progress(partial: ToolResult): void;
}

/** The context `execute` receives; its signal is made only if the tool reads it. */
class CallContext implements ToolExecuteContext {
  static {
    keepLayout(new CallContext("", new AbortController().signal, { progress: () => {} }));
  }
  readonly toolCallId: string;
  #controller: AbortController | undefined;
  #update: ((partial: ToolResult) => void) | undefined;
  #stopped: unknown;
  readonly #runSignal: AbortSignal;
  readonly #sink: UpdateSink;

  constructor(toolCallId: string, runSignal: AbortSignal, sink: UpdateSink) {
    this.toolCallId = toolCallId;
    this.#runSignal = runSignal;
    this.#sink = sink;
  }

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#stopped !== undefined) this.#controller.abort(this.#stopped);
      else if (this.#runSignal.aborted) this.#controller.abort(this.#runSignal.reason);
    }
    return this.#controller.signal;
  }

  /** Sends a progress update; made only if the tool reads it (and works detached too). */
  get update(): (partial: ToolResult) => void {
    return this.#update ??= (partial) => this.#sink.progress(partial);
  }

  stop(reason: unknown): void {
    this.#stopped = reason;
    this.#controller?.abort(reason);
  }
}

/**
 * Executes a prepared call. Ends with a result whatever happens: the tool's result, its
 * thrown error, a timeout, or the run's abort. A stalled tool never holds the caller
 * beyond `timeoutMs`: its signal is aborted and the caller moves on.
 *
 * A tool that answers synchronously gets its outcome back synchronously (no timer, no
 * promise); an asynchronous one is watched by `watch` (shared by the calls of a run).
 *
 * @param prepared The call, its tool and validated arguments.
 * @param signal The run's abort signal.
 * @param timeoutMs The call's timeout (`Infinity` or 0 for none).
 * @param emit Receives `tool_execution_update` events while the call runs.
 * @param watch The run's watch; a private one is used when omitted.
 * @returns The result and whether it is an error; never rejects.
 *
 * @example A tool that throws
 * ```ts
 * import { executePreparedToolCall } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * const tool = {
 *   name: "boom", description: "fails", parameters: { type: "object" },
 *   execute(): never { throw new Error("boom!"); },
 * };
 * const toolCall = { type: "toolCall" as const, id: "1", name: "boom", arguments: {} };
 * const outcome = await executePreparedToolCall(
 *   { kind: "prepared", toolCall, tool, args: {} }, new AbortController().signal, 1000, () => {},
 * );
 * equal(outcome.isError, true);
 * ```
 */
export function executePreparedToolCall(
  prepared: PreparedToolCall,
  signal: AbortSignal,
  timeoutMs: number,
  emit: AgentEventSink,
  watch?: CallWatch,
): MaybePromise<ExecutedToolCall> {
  const own = watch ? undefined : new CallWatch(signal);
  let outcome: ExecutedToolCall | undefined;
  let resolve: ((outcome: ExecutedToolCall) => void) | undefined;
  runPreparedToolCall(prepared, signal, timeoutMs, emit, watch ?? own!, (ended) => {
    own?.dispose();
    if (resolve) resolve(ended);
    else outcome = ended;
  });
  // A synchronous tool has answered by now; an asynchronous one resolves this promise later.
  return outcome ?? new Promise((settle) => (resolve = settle));
}

/**
 * {@linkcode executePreparedToolCall} for the executor: hands the outcome to `done` (once)
 * instead of returning it, so a batch waits on its calls without a promise per call. A
 * synchronous tool calls `done` before this returns.
 *
 * @param prepared The call, its tool and validated arguments.
 * @param signal The run's abort signal.
 * @param timeoutMs The call's timeout (`Infinity` or 0 for none).
 * @param emit Receives `tool_execution_update` events while the call runs.
 * @param watch The run's watch.
 * @param done Receives the result and whether it is an error; must not throw.
 *
 * @example A synchronous tool answers at once
 * ```ts
 * import { runPreparedToolCall } from "./execute_prepared_tool_call.ts";
 * import { CallWatch } from "./call_watch.ts";
 * import { equal } from "node:assert/strict";
 *
 * const tool = {
 *   name: "hi", description: "", parameters: { type: "object" },
 *   execute: () => ({ content: [{ type: "text" as const, text: "hi" }] }),
 * };
 * const toolCall = { type: "toolCall" as const, id: "1", name: "hi", arguments: {} };
 * const signal = new AbortController().signal;
 * let isError: boolean | undefined;
 * runPreparedToolCall({ kind: "prepared", toolCall, tool, args: {} }, signal, 1000, () => {},
 *   new CallWatch(signal), (outcome) => (isError = outcome.isError));
 * equal(isError, false);
 * ```
 */
export function runPreparedToolCall(
  prepared: PreparedToolCall,
  signal: AbortSignal,
  timeoutMs: number,
  emit: AgentEventSink,
  watch: CallWatch,
  done: (outcome: ExecutedToolCall) => void,
): void {
  const call = new RunningCall(prepared, signal, timeoutMs, emit, done);
  let running: unknown;
  try {
    running = prepared.tool.execute(prepared.args, call.context);
  } catch (error) {
    return call.threw(error);
  }
  if (!isPromiseLike(running)) return call.answered(running);
  call.watchWith(watch);
  if (signal.aborted) call.stop("abort");
  running.then((value) => call.answered(value), (error) => call.threw(error));
}

/**
 * One call from its start until it settles, once: with what its tool answered or threw,
 * its timeout, or the run's abort. A class rather than closures, so that V8 keeps the code
 * it optimized for it across full GCs (see keep_layout.ts).
 */
class RunningCall {
  static {
    const signal = new AbortController().signal;
    const prepared = { kind: "prepared", toolCall: {}, tool: {}, args: {} } as PreparedToolCall;
    keepLayout(new RunningCall(prepared, signal, 0, () => {}, () => {}));
  }
  readonly context: CallContext;
  #settled = false;
  #watcher: Watcher | undefined;
  readonly #prepared: PreparedToolCall;
  readonly #signal: AbortSignal;
  readonly #timeoutMs: number;
  readonly #emit: AgentEventSink;
  readonly #done: (outcome: ExecutedToolCall) => void;

  constructor(
    prepared: PreparedToolCall,
    signal: AbortSignal,
    timeoutMs: number,
    emit: AgentEventSink,
    done: (outcome: ExecutedToolCall) => void,
  ) {
    this.#prepared = prepared;
    this.#signal = signal;
    this.#timeoutMs = timeoutMs;
    this.#emit = emit;
    this.#done = done;
    this.context = new CallContext(prepared.toolCall.id, signal, this);
  }

  /** Watches the call for its timeout and the run's abort (a tool that answered later). */
  watchWith(watch: CallWatch): void {
    this.#watcher = watch.add(this.#timeoutMs, this);
  }

  answered(value: unknown): void {
    let outcome: ExecutedToolCall;
    try {
      outcome = checkResult(this.#prepared.tool.name, value);
    } catch (error) {
      // A result whose content getter throws: an error result like any other.
      outcome = { result: errorToToolResult(error), isError: true };
    }
    this.#settle(outcome);
  }

  threw(error: unknown): void {
    this.#settle({ result: errorToToolResult(error), isError: true });
  }

  /** Ends the call for its timeout or the abort, and aborts the signal its tool was given. */
  stop(why: StopReason): void {
    const name = this.#prepared.tool.name;
    this.#settle(stoppedResult(name, why, this.#timeoutMs));
    this.context.stop(
      why === "timeout"
        ? new DOMException(`Tool ${name} timed out`, "TimeoutError")
        : this.#signal.reason,
    );
  }

  #settle(outcome: ExecutedToolCall): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#watcher?.owner.remove(this.#watcher);
    this.#done(outcome);
  }

  /** A progress update from the tool (through its context). */
  progress(partialResult: ToolResult): void {
    if (this.#settled) return;
    const { toolCall } = this.#prepared;
    this.#emit({
      type: "tool_execution_update",
      toolCallId: toolCall.id,
      toolName: toolCall.name,
      partialResult,
    });
  }
}
