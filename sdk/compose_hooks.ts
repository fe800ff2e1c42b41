/**
 * The hook dispatcher: plugin hooks in the order the plugins were given, then the
 * agent's own. First block wins (also over a defer: hooks after a defer still run); each
 * hook sees the arguments (or result) as the hooks before it left them; a hook that throws
 * fails closed, naming its plugin.
 *
 * @module
 */

import { createErrorToolResult } from "../core/create_error_tool_result.ts";
import { copyForHooks } from "../core/copy_arguments.ts";
import { validateToolArguments } from "../core/validate_tool_arguments.ts";
import { overrideResult } from "../core/finalize_executed_tool_call.ts";
import { isPromiseLike, type MaybePromise } from "../core/maybe_promise.ts";
import { ownerLabel } from "../core/owner_label.ts";
import type {
  AfterToolCallHook,
  AfterToolCallResult,
  BeforeToolCallHook,
  BeforeToolCallResult,
  DeferToolCall,
  VerifyToolCallHook,
  VerifyToolCallResult,
} from "../core/hooks.ts";
import type { ToolResult } from "../core/tool.ts";
import { thrownText } from "../core/thrown_text.ts";
import { rejectAfter } from "./sleep.ts";

/** A hook tagged with who registered it (a plugin's name, or `createAgent`). */
export interface TaggedHook<H> {
  /** A plugin's name, or `createAgent` for the agent's own hooks. */
  owner: string;
  /** The hook. */
  hook: H;
  /**
   * How long this hook may take before it counts as failed (fail closed, naming its
   * owner): a number, or one computed from the call's tool (absent, `0` or `Infinity`:
   * unbounded here; the run's abort and the loop's own bound still apply).
   */
  timeoutMs?: number | ((tool: { readonly name: string; readonly timeoutMs?: number }) => number);
}

/** What a hook that did not answer within its own bound failed with. */
class HookTimeout extends Error {}

/**
 * Waits for a hook's promise at most `ms` (finite and positive), else rejects with
 * `its <stage> hook did not answer within <ms> ms`.
 *
 * @param value The hook's answer.
 * @param ms The bound.
 * @param stage The hook point, for the message.
 * @returns The answer, or a rejection past the bound.
 *
 * @example A hook that never answers
 * ```ts
 * import { within } from "./compose_hooks.ts";
 * import { rejects } from "node:assert/strict";
 *
 * await rejects(within(new Promise(() => {}), 5, "prepareTurn"), {
 *   message: "its prepareTurn hook did not answer within 5 ms",
 * });
 * ```
 */
export function within<T>(value: PromiseLike<T>, ms: number, stage: string): Promise<T> {
  return rejectAfter(
    value,
    ms,
    () => new HookTimeout(`its ${stage} hook did not answer within ${ms} ms`),
  );
}

/**
 * Calls one tagged hook, bounded by its own `timeoutMs` when it has one.
 */
function bounded<H>(
  tagged: TaggedHook<H>,
  tool: { readonly name: string; readonly timeoutMs?: number },
  stage: string,
  call: (hook: H) => unknown,
): unknown {
  const value = call(tagged.hook);
  if (tagged.timeoutMs === undefined || !isPromiseLike(value)) return value;
  const ms = typeof tagged.timeoutMs === "function" ? tagged.timeoutMs(tool) : tagged.timeoutMs;
  return ms > 0 && Number.isFinite(ms) ? within(value, ms, stage) : value;
}

function messageOf(error: unknown): string {
  return thrownText(error);
}

/** A hook's answer: what it returned, or what it threw (or rejected with). */
type Answer = { value: unknown } | { error: unknown };

/**
 * Runs hooks in order, folding each answer into the state; a `stop` ends the chain. It
 * stays synchronous until a hook returns a promise, so a chain of synchronous hooks costs
 * no promise, no timer and no microtask on the per-call path.
 */
function runChain<H, S, R>(
  hooks: readonly TaggedHook<H>[],
  state: S,
  call: (hook: H, state: S) => unknown,
  step: (owner: string, state: S, answer: Answer) => { stop: R } | { state: S },
  end: (state: S) => R,
  stage: string,
  tool: { readonly name: string; readonly timeoutMs?: number },
  stopOnAbort: AbortSignal,
  from = 0,
): MaybePromise<R> {
  for (let i = from; i < hooks.length; i++) {
    const { owner } = hooks[i];
    let answer: Answer;
    try {
      const value = bounded(hooks[i], tool, stage, (hook) => call(hook, state));
      if (isPromiseLike(value)) {
        const current = state;
        return Promise.resolve(value)
          .then((resolved): Answer => ({ value: resolved }), (error): Answer => ({ error }))
          .then((later) => {
            const next = step(owner, current, later);
            if ("stop" in next) return next.stop;
            // The loop stopped waiting (the run aborted, or the chain took too long): the
            // call will not run, or its result is withheld, so no later hook is asked.
            if (stopOnAbort.aborted) return end(next.state);
            return runChain(hooks, next.state, call, step, end, stage, tool, stopOnAbort, i + 1);
          });
      }
      answer = { value };
    } catch (error) {
      answer = { error };
    }
    const next = step(owner, state, answer);
    if ("stop" in next) return next.stop;
    state = next.state;
  }
  return end(state);
}

/**
 * What a chain before the call answers once its signal aborted (the run's abort, or the loop
 * no longer waiting): a block, so that no caller runs the call on a partial verdict.
 */
function notWaitedFor(toolName: string, stage: string): { block: true; reason: string } {
  return {
    block: true,
    reason: `Tool ${toolName} was not run: its ${stage} hooks were no longer waited for`,
  };
}

/** A hook's defer, tagged with its owner (the first defer is the one reported). */
function deferralOf(owner: string, decision: { reason?: string; key?: string }): DeferToolCall {
  const deferral: DeferToolCall = { defer: true, deferredBy: owner };
  deferral.reason = decision.reason || `Tool call deferred by ${ownerLabel(owner)}`;
  if (decision.key !== undefined) deferral.key = decision.key;
  return deferral;
}

/**
 * Composes `beforeToolCall` hooks into one. No hooks: `undefined` (the loop skips the
 * gate entirely).
 *
 * @param hooks Tagged hooks, in order.
 * @returns The composed hook, or `undefined`.
 *
 * @example The first block wins
 * ```ts
 * import { composeBeforeToolCall } from "@tack/agent";
 * import { deepEqual } from "node:assert/strict";
 *
 * const hook = composeBeforeToolCall([
 *   { owner: "a", hook: () => ({ block: true, reason: "no" }) },
 *   { owner: "b", hook: () => { throw new Error("never reached"); } },
 * ]);
 * // deno-lint-ignore no-explicit-any
 * deepEqual(await hook!({ args: {} } as any, new AbortController().signal), {
 *   block: true,
 *   blockedBy: "a",
 *   reason: "no",
 * });
 * ```
 */
export function composeBeforeToolCall(
  hooks: readonly TaggedHook<BeforeToolCallHook>[],
): BeforeToolCallHook | undefined {
  if (hooks.length === 0) return undefined;
  return function beforeToolCall(context, signal) {
    type State = {
      /** The arguments as the last rewrite left them (the loop validates them). */
      args: Record<string, unknown>;
      /** What the next hook sees: a frozen copy of `args`. */
      seen: Record<string, unknown>;
      rewriters: string[];
      deferral?: DeferToolCall;
    };
    const { tool } = context;
    return runChain<BeforeToolCallHook, State, BeforeToolCallResult | undefined>(
      hooks,
      { args: context.args, seen: context.args, rewriters: [] },
      (hook, { seen }) =>
        hook(seen === context.args ? context : { ...context, args: seen }, signal),
      (owner, state, answer) => {
        if ("error" in answer) {
          const reason = `Tool ${tool.name} was blocked: ${
            ownerLabel(owner)
          } failed in beforeToolCall: ${messageOf(answer.error)}`;
          return { stop: { block: true, blockedBy: owner, reason } };
        }
        const decision = answer.value as BeforeToolCallResult | undefined;
        if (decision?.block) {
          const reason = decision.reason || `Tool ${tool.name} was blocked by ${ownerLabel(owner)}`;
          return { stop: { block: true, blockedBy: owner, reason } };
        }
        if (decision?.defer && !state.deferral) {
          state = { ...state, deferral: deferralOf(owner, decision) };
        }
        if (decision?.args && decision.args !== state.seen) {
          // The hooks after a rewrite see what will run, as the first saw the model's: the
          // rewrite validated (and coerced) by the tool's schema, in a frozen copy. One that
          // does not fit ends the chain; the loop then refuses it, naming who rewrote it.
          const rewriters = [...state.rewriters, owner];
          // A snapshot, taken now: the rewriter keeps its object and could change it after
          // the hooks below looked (the loop copies what the chain returns only at its end).
          let args: Record<string, unknown>;
          try {
            args = structuredClone(decision.args);
          } catch {
            return { stop: { args: decision.args, rewrittenBy: rewriters } }; // the loop refuses it
          }
          const rewritten = validateToolArguments(
            tool.name,
            tool.parameters,
            args,
            tool.validateArguments,
          );
          if (!rewritten.ok) return { stop: { args, rewrittenBy: rewriters } };
          // What runs stays the rewrite as written: the loop validates it once more, and a
          // schema that transforms (zod's .transform) must not apply twice.
          const seen = copyForHooks(rewritten.value);
          return { state: { ...state, args, seen, rewriters } };
        }
        return { state };
      },
      ({ args, rewriters, deferral }) => {
        if (signal.aborted) return notWaitedFor(tool.name, "beforeToolCall");
        if (!deferral) return rewriters.length === 0 ? undefined : { args, rewrittenBy: rewriters };
        return rewriters.length === 0 ? deferral : { ...deferral, args, rewrittenBy: rewriters };
      },
      "beforeToolCall",
      tool,
      signal,
    );
  };
}

/**
 * Composes `verifyToolCall` hooks: the first block wins; a hook that throws blocks the
 * call, naming its plugin.
 *
 * @param hooks Tagged hooks, in order.
 * @returns The composed hook, or `undefined` when there are none.
 *
 * @example A verifier that refuses changed arguments
 * ```ts
 * import { composeVerifyToolCall } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * const verify = composeVerifyToolCall([
 *   { owner: "confirm", hook: ({ args }) => (args.ok ? undefined : { block: true, reason: "changed" }) },
 * ]);
 * // deno-lint-ignore no-explicit-any
 * const verdict = await verify!({ args: {}, tool: { name: "t" } } as any, new AbortController().signal);
 * equal(verdict?.block && verdict.blockedBy, "confirm");
 * ```
 */
export function composeVerifyToolCall(
  hooks: readonly TaggedHook<VerifyToolCallHook>[],
): VerifyToolCallHook | undefined {
  if (hooks.length === 0) return undefined;
  return function verifyToolCall(context, signal) {
    return runChain<VerifyToolCallHook, DeferToolCall | null, VerifyToolCallResult | undefined>(
      hooks,
      null,
      (hook) => hook(context, signal),
      (owner, state, answer) => {
        if ("error" in answer) {
          const reason = `Tool ${context.tool.name} was blocked: ${
            ownerLabel(owner)
          } failed in verifyToolCall: ${messageOf(answer.error)}`;
          return { stop: { block: true, blockedBy: owner, reason } };
        }
        const verdict = answer.value as VerifyToolCallResult | undefined;
        if (verdict?.block) {
          const reason = verdict.reason ||
            `Tool ${context.tool.name} was blocked by ${ownerLabel(owner)}`;
          return { stop: { block: true, blockedBy: owner, reason } };
        }
        if (verdict?.defer && !state) return { state: deferralOf(owner, verdict) };
        return { state };
      },
      (deferral) =>
        signal.aborted ? notWaitedFor(context.tool.name, "verifyToolCall") : deferral ?? undefined,
      "verifyToolCall",
      context.tool,
      signal,
    );
  };
}

/**
 * Composes `afterToolCall` hooks into one. Each hook sees the result as changed by the
 * ones before; a hook that throws turns the result into an error naming its plugin
 * (later hooks still run and see that error).
 *
 * @param hooks Tagged hooks, in order.
 * @returns The composed hook, or `undefined` when there are none.
 *
 * @example Two hooks, applied in order
 * ```ts
 * import { composeAfterToolCall } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * const hook = composeAfterToolCall([
 *   { owner: "a", hook: () => ({ details: 1 }) },
 *   { owner: "b", hook: ({ result }) => ({ details: (result.details as number) + 1 }) },
 * ]);
 * // deno-lint-ignore no-explicit-any
 * const out = await hook!({ result: { content: [] }, isError: false } as any, new AbortController().signal);
 * equal(out?.details, 2);
 * ```
 */
export function composeAfterToolCall(
  hooks: readonly TaggedHook<AfterToolCallHook>[],
): AfterToolCallHook | undefined {
  if (hooks.length === 0) return undefined;
  return function afterToolCall(context, signal) {
    type State = { result: ToolResult; isError: boolean };
    return runChain<AfterToolCallHook, State, AfterToolCallResult | undefined>(
      hooks,
      { result: context.result, isError: context.isError },
      (hook, { result, isError }) => hook({ ...context, result, isError }, signal),
      (owner, { result, isError }, answer) => {
        if ("error" in answer) {
          const text = `Tool ${context.tool.name} failed: ${
            ownerLabel(owner)
          } failed in afterToolCall: ${messageOf(answer.error)}`;
          return { state: { result: createErrorToolResult(text), isError: true } };
        }
        const override = answer.value as AfterToolCallResult | undefined;
        if (!override) return { state: { result, isError } };
        return { state: overrideResult({ result, isError }, override) };
      },
      ({ result, isError }) =>
        result === context.result && isError === context.isError
          ? undefined
          : { ...result, isError },
      "afterToolCall",
      context.tool,
      signal,
    );
  };
}
