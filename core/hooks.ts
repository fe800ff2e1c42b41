/**
 * The hook points the loop offers. The loop provides the mechanism; plugins decide.
 *
 * @module
 */

import type { AssistantMessage, Message, ToolCall, ToolResultMessage } from "./messages.ts";
import type { AgentTool, ToolResult } from "./tool.ts";

/** The state a run works on. The loop appends to `messages`; hooks only read it. */
export interface AgentContext {
  /** The system prompt of the run (to a tool call's hooks: its turn's, as `prepareTurn` chose). */
  readonly systemPrompt: string;
  /** The transcript so far. */
  readonly messages: readonly Message[];
  /** The tools of the run (to a tool call's hooks: its turn's, as `prepareTurn` chose). */
  readonly tools: readonly AgentTool[];
}

/** What `beforeToolCall` and `verifyToolCall` see. */
export interface BeforeToolCallContext {
  /** The message that asked for the call. */
  assistantMessage: AssistantMessage;
  /** The call as the model sent it. */
  toolCall: ToolCall;
  /** The tool that will run. */
  tool: AgentTool;
  /** Validated arguments (as rewritten by earlier hooks, if any). */
  args: Record<string, unknown>;
  /** The run's state. */
  context: AgentContext;
  /**
   * For `verifyToolCall`: set when a `beforeToolCall` deferred the call, which then does
   * not run now (a verify hook may still block it; an audit log should not say it ran).
   */
  deferred?: DeferToolCall;
}

/**
 * What `beforeToolCall` may return: `{ block: true, reason }` stops the call (the reason
 * is the error text the model reads); `{ args }` rewrites the arguments, which are
 * validated against the schema again before execution. The dispatcher records who did
 * either (`blockedBy`, `rewrittenBy`), and `tool_execution_end` reports it.
 */
export type BeforeToolCallResult =
  | {
    block: true;
    reason?: string;
    /** Who blocked: a plugin's name, or `createAgent` (set by the hook dispatcher). */
    blockedBy?: string;
  }
  | {
    block?: false;
    /** Set with `reason` to defer the call (see {@linkcode DeferToolCall}). */
    defer?: boolean;
    /** Why the call is deferred (only with `defer: true`). */
    reason?: string;
    /** Who deferred it (set by the dispatcher). */
    deferredBy?: string;
    /** What a sticky "always" decision covers (only with `defer: true`). */
    key?: string;
    /** The rewritten arguments (validated again before execution). */
    args?: Record<string, unknown>;
    /** Who rewrote them, in order: plugin names, or `createAgent` (set by the dispatcher). */
    rewrittenBy?: readonly string[];
  };

/**
 * `{ defer: true, reason }`: the call waits for a person. It does not run now; the run
 * stops once the batch's other calls finish, and the call runs (with exactly the
 * arguments it was deferred with) only if someone approves it on resume. Later hooks
 * still see the call and may block it; a block wins over a defer.
 */
export interface DeferToolCall {
  /** Tag. */
  defer: true;
  /** Never a block. */
  block?: false;
  /** Why a person must decide (shown to them). */
  reason?: string;
  /**
   * What an "always" decision covers, beyond the tool's name (e.g. a normalized command);
   * without it, "always" covers the tool.
   */
  key?: string;
  /** Who deferred (set by the hook dispatcher). */
  deferredBy?: string;
}

/**
 * Runs after validation, before execution.
 *
 * Contract: may block or rewrite; should not throw (a throw becomes an error result).
 * Receives a signal that aborts when the run aborts or the loop stops waiting for the
 * call's hooks, and should honour it. The loop waits for it at most the call's hook timeout
 * (`hookTimeoutMs`, default the call's timeout) or until the run aborts; once it gave up,
 * the hooks after a slow one are not called for that call (it does not run).
 */
export type BeforeToolCallHook = (
  context: BeforeToolCallContext,
  signal: AbortSignal,
) => BeforeToolCallResult | undefined | void | Promise<BeforeToolCallResult | undefined | void>;

/** What `verifyToolCall` may return: block, defer, or nothing. */
export type VerifyToolCallResult = {
  block: true;
  reason?: string;
  /** Who blocked (set by the hook dispatcher). */
  blockedBy?: string;
} | DeferToolCall;

/**
 * The last check before execution: runs after every `beforeToolCall` hook and after
 * rewritten arguments were validated again, on exactly the arguments `execute` will get.
 * It may only block or defer (an approval bound to those arguments is checked here).
 *
 * Contract: should not throw (a throw blocks the call). Honour the signal.
 */
export type VerifyToolCallHook = (
  context: BeforeToolCallContext,
  signal: AbortSignal,
) => VerifyToolCallResult | undefined | void | Promise<VerifyToolCallResult | undefined | void>;

/** What `afterToolCall` sees. */
export interface AfterToolCallContext extends BeforeToolCallContext {
  /** The result so far. */
  result: ToolResult;
  /** Whether the result is an error so far. */
  isError: boolean;
}

/** A field-by-field override of a result: omitted fields keep their value. */
export interface AfterToolCallResult {
  /** Replaces the content in full. */
  content?: ToolResult["content"];
  /** Replaces the details in full. */
  details?: unknown;
  /** Replaces the error flag. */
  isError?: boolean;
  /** Replaces the early-termination hint. */
  terminate?: boolean;
}

/**
 * Runs after execution (also after a failed or timed-out execution; not once the run was
 * aborted), before `tool_execution_end`.
 *
 * Contract: returns overrides or nothing; should not throw (a throw makes the result an
 * error naming the hook's plugin). Its signal aborts when the run aborts or the loop stops
 * waiting for the call's hooks (`hookTimeoutMs`); once it gave up, the hooks after a slow
 * one are not called for that call.
 */
export type AfterToolCallHook = (
  context: AfterToolCallContext,
  signal: AbortSignal,
) => AfterToolCallResult | undefined | void | Promise<AfterToolCallResult | undefined | void>;

/** What `prepareTurn` sees before a model call. */
export interface PrepareTurnContext {
  /** The model call this prepares: 1 for the run's first. */
  turn: number;
  /** The system prompt for this call (as earlier `prepareTurn` hooks left it). */
  systemPrompt: string;
  /** The tools for this call (as earlier hooks left them; at first, all the agent's tools). */
  tools: readonly AgentTool[];
  /** The transcript so far. */
  messages: readonly Message[];
}

/** What `prepareTurn` may set for one model call; omitted fields keep their value. */
export interface PrepareTurnResult {
  /**
   * The tools active for this call: the model is offered exactly these, and a call to any
   * other tool ends as `Tool <name> not found` listing these.
   */
  tools?: readonly AgentTool[];
  /** The system prompt for this call (the agent's own is unchanged). */
  systemPrompt?: string;
  /** The cap on this turn's parallel batch (see `maxConcurrency`). */
  maxConcurrency?: number;
}

/**
 * Runs before each model call; may choose the active tools, the system prompt and the
 * batch's concurrency for that call.
 *
 * Contract: should not throw (a throw ends the run with an assistant error message naming
 * the hook). Bounded by `hookTimeoutMs` and the run's abort, like the tool-call hooks.
 */
export type PrepareTurnHook = (
  context: PrepareTurnContext,
  signal: AbortSignal,
) => PrepareTurnResult | undefined | void | Promise<PrepareTurnResult | undefined | void>;

/** What `shouldStopAfterTurn` sees. */
export interface ShouldStopAfterTurnContext {
  /** The assistant message that completed the turn. */
  message: AssistantMessage;
  /** The turn's tool results. */
  toolResults: ToolResultMessage[];
  /** The run's state, after the turn was appended. */
  context: AgentContext;
  /** The messages this run has added so far. */
  newMessages: readonly Message[];
}

/**
 * Asked after each turn; `true` ends the run gracefully (no further model call).
 *
 * Contract: must not throw.
 */
export type ShouldStopAfterTurnHook = (
  context: ShouldStopAfterTurnContext,
) => boolean | Promise<boolean>;
