/**
 * What an interrupted run is as plain JSON, and what a person decides about it.
 *
 * @module
 */

import type { Message, ToolResultMessage } from "../core/messages.ts";
import type { PendingToolCall } from "../core/interruption.ts";
import type {
  BeforeToolCallContext,
  BeforeToolCallResult,
  VerifyToolCallResult,
} from "../core/hooks.ts";
import { isPromiseLike } from "../core/maybe_promise.ts";
import { hashArguments } from "./hash_arguments.ts";

/** A call waiting for a decision, with the hash its approval must carry. */
export interface PendingApproval extends PendingToolCall {
  /** SHA-256 of the final arguments in canonical JSON (see `hashArguments`). */
  argsHash: string;
}

/** "Always" for a tool (`key` absent) or for one key of it (a normalized command). */
export interface StickyDecision {
  /** The tool. */
  toolName: string;
  /** The deferral's key it covers; absent: every call of the tool. */
  key?: string;
}

/** A person's decision about one pending call. */
export type Decision =
  | {
    /** The call decided. */
    toolCallId: string;
    /** Run it. */
    approve: true;
    /** The hash of the arguments the person saw; must equal the pending call's. */
    argsHash: string;
    /** Also approve later calls: of this tool, or with this key (the deferral's `key`). */
    always?: "tool" | "key";
  }
  | {
    /** The call decided. */
    toolCallId: string;
    /** Do not run it: it gets an error result with `reason`. */
    approve: false;
    /** Why, in the person's words (the model reads it). */
    reason?: string;
  };

/** Which agent a state belongs to: resuming it with another model or without its tools is refused. */
export interface ConfigIdentity {
  /** The model's provider. */
  provider: string;
  /** The model's id. */
  model: string;
  /** The agent's tool names. */
  tools: string[];
}

/** A run as plain JSON: `agent.state()`, `resumeAgent(state, options)`. */
export interface AgentState {
  /** The format's version. */
  version: 1;
  /** The transcript. */
  messages: Message[];
  /** Calls waiting for a decision. */
  pending: PendingApproval[];
  /** Results of the open batch's calls that finished (never re-run). */
  completed: ToolResultMessage[];
  /** Calls that were executing when the state was taken: never re-run, reported as "may have completed". */
  running: string[];
  /** "Always" decisions so far. */
  sticky: StickyDecision[];
  /**
   * The tools the open batch's turn offered, when `prepareTurn` chose them: the batch goes
   * on with those alone.
   */
  turnTools?: string[];
  /** The agent it was taken from. */
  config: ConfigIdentity;
}

/**
 * A decision approving a pending call, bound to its id and arguments' hash.
 *
 * @param pending The call, from `agent.pending` or a stored state.
 * @param always Approve later calls of this tool (`"tool"`) or with this key (`"key"`) too.
 * @returns The decision.
 *
 * @example
 * ```ts
 * import { approveCall } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * const decision = approveCall({ toolCallId: "c1", toolName: "rm", args: {}, reason: "", argsHash: "ab" });
 * equal(decision.approve && decision.argsHash, "ab");
 * ```
 */
export function approveCall(pending: PendingApproval, always?: "tool" | "key"): Decision {
  const decision: Decision = {
    toolCallId: pending.toolCallId,
    approve: true,
    argsHash: pending.argsHash,
  };
  if (always) decision.always = always;
  return decision;
}

/**
 * A decision rejecting a pending call.
 *
 * @param pending The call.
 * @param reason Why (the model reads it in the call's error result).
 * @returns The decision.
 *
 * @example
 * ```ts
 * import { rejectCall } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * equal(rejectCall({ toolCallId: "c1", toolName: "rm", args: {}, reason: "" }).approve, false);
 * ```
 */
export function rejectCall(pending: PendingToolCall, reason?: string): Decision {
  const decision: Decision = { toolCallId: pending.toolCallId, approve: false };
  if (reason) decision.reason = reason;
  return decision;
}

/**
 * The error text of a rejected call.
 *
 * @param toolName The tool.
 * @param reason The person's reason, if any.
 * @returns The text.
 *
 * @example
 * ```ts
 * import { rejectedMessage } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * equal(rejectedMessage("rm", "not on prod"), "Tool rm was rejected: not on prod");
 * ```
 */
export function rejectedMessage(toolName: string, reason?: string): string {
  return reason
    ? `Tool ${toolName} was rejected: ${reason}`
    : `Tool ${toolName} was rejected by the person asked`;
}

/**
 * The error text of a call that was executing when its process stopped: it is not run
 * again, since it may have had its effect.
 *
 * @param toolName The tool.
 * @returns The text.
 *
 * @example
 * ```ts
 * import { mayHaveCompletedMessage } from "@tack/agent";
 * import { match } from "node:assert/strict";
 *
 * match(mayHaveCompletedMessage("deploy"), /may have completed/);
 * ```
 */
export function mayHaveCompletedMessage(toolName: string): string {
  return `Tool ${toolName} was interrupted while it was running (the run stopped before its ` +
    `result was recorded); it may have completed. It was not run again: check its effect ` +
    `before calling it again.`;
}

/**
 * A hook's verdict with the person's standing decisions applied: a deferral that a sticky
 * "always" covers (every call of the tool, or this deferral's key) becomes a pass, keeping
 * any rewritten arguments; anything else is returned as it is.
 *
 * @param sticky The standing decisions.
 * @param toolName The call's tool.
 * @param result What the hook answered.
 * @returns The verdict to act on.
 *
 * @example An "always" for the tool lets its deferral pass
 * ```ts
 * import { unlessSticky } from "./agent_state.ts";
 * import { equal } from "node:assert/strict";
 *
 * const deferral = { defer: true as const, reason: "asks", key: "k" };
 * equal(unlessSticky([{ toolName: "deploy" }], "deploy", deferral), undefined);
 * equal(unlessSticky([{ toolName: "deploy", key: "other" }], "deploy", deferral), deferral);
 * ```
 */
export function unlessSticky<R extends BeforeToolCallResult | VerifyToolCallResult>(
  sticky: readonly StickyDecision[],
  toolName: string,
  result: R | undefined | void,
): R | undefined {
  if (!result || result.block || !result.defer) return result ?? undefined;
  const key = result.key;
  const covered = sticky.some((s) =>
    s.toolName === toolName && (s.key === undefined || s.key === key)
  );
  if (!covered) return result;
  if ("args" in result && result.args) {
    return { args: result.args, rewrittenBy: result.rewrittenBy } as R;
  }
  return undefined;
}

/**
 * A `beforeToolCall` or `verifyToolCall` hook whose deferrals a standing "always" covers
 * pass (see {@linkcode unlessSticky}); synchronous when the hook answers synchronously.
 *
 * @param hook The composed hook, if any.
 * @param sticky The standing decisions, read at each call.
 * @returns The wrapped hook, or `undefined` when there is none.
 *
 * @example
 * ```ts
 * import { withSticky } from "./agent_state.ts";
 * import { equal } from "node:assert/strict";
 *
 * const hook = withSticky(() => ({ defer: true as const, reason: "asks" }), () => [{ toolName: "deploy" }]);
 * // deno-lint-ignore no-explicit-any
 * equal(hook?.({ tool: { name: "deploy" } } as any, new AbortController().signal), undefined);
 * ```
 */
export function withSticky<R extends BeforeToolCallResult | VerifyToolCallResult>(
  hook:
    | ((
      context: BeforeToolCallContext,
      signal: AbortSignal,
    ) => R | undefined | void | Promise<R | undefined | void>)
    | undefined,
  sticky: () => readonly StickyDecision[],
):
  | ((
    context: BeforeToolCallContext,
    signal: AbortSignal,
  ) => R | undefined | Promise<R | undefined>)
  | undefined {
  if (!hook) return undefined;
  return (context, signal) => {
    const result = hook(context, signal);
    const decide = (value: R | undefined | void) =>
      unlessSticky(sticky(), context.tool.name, value);
    return isPromiseLike<R | undefined | void>(result)
      ? Promise.resolve(result).then(decide)
      : decide(result);
  };
}

/**
 * The calls a batch left waiting, each with the hash of its arguments (what an approval binds).
 *
 * @param calls The waiting calls.
 * @returns Them, with `argsHash`.
 *
 * @example
 * ```ts
 * import { pendingApprovals } from "./agent_state.ts";
 * import { equal } from "node:assert/strict";
 *
 * const [call] = await pendingApprovals([
 *   { toolCallId: "c1", toolName: "deploy", args: {}, reason: "asks" },
 * ]);
 * equal(call.argsHash.length > 0, true);
 * ```
 */
export function pendingApprovals(calls: readonly PendingToolCall[]): Promise<PendingApproval[]> {
  return Promise.all(
    calls.map(async (call) => ({ ...call, argsHash: await hashArguments(call.args) })),
  );
}
