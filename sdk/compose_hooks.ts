/**
 * The hook dispatcher: plugin hooks in the order the plugins were given, then the
 * agent's own. First block wins; each hook sees the arguments (or result) as the hooks
 * before it left them; a hook that throws fails closed, naming its plugin.
 *
 * @module
 */

import { createErrorToolResult } from "../core/create_error_tool_result.ts";
import { ownerLabel } from "../core/owner_label.ts";
import type {
  AfterToolCallHook,
  AfterToolCallResult,
  BeforeToolCallHook,
  BeforeToolCallResult,
  ShouldStopAfterTurnHook,
  VerifyToolCallHook,
  VerifyToolCallResult,
} from "../core/hooks.ts";
import type { ToolResult } from "../core/tool.ts";

/** A hook tagged with who registered it (a plugin's name, or `createAgent`). */
export interface TaggedHook<H> {
  /** A plugin's name, or `createAgent` for the agent's own hooks. */
  owner: string;
  /** The hook. */
  hook: H;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
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
  return async function beforeToolCall(context, signal): Promise<BeforeToolCallResult | undefined> {
    let args = context.args;
    const rewriters: string[] = [];
    for (const { owner, hook } of hooks) {
      let decision: BeforeToolCallResult | undefined | void;
      try {
        decision = await hook(args === context.args ? context : { ...context, args }, signal);
      } catch (error) {
        return {
          block: true,
          blockedBy: owner,
          reason: `Tool ${context.tool.name} was blocked: ${
            ownerLabel(owner)
          } failed in beforeToolCall: ${messageOf(error)}`,
        };
      }
      if (!decision) continue;
      if (decision.block) {
        return {
          block: true,
          blockedBy: owner,
          reason: decision.reason ||
            `Tool ${context.tool.name} was blocked by ${ownerLabel(owner)}`,
        };
      }
      if (decision.args && decision.args !== args) {
        args = decision.args;
        rewriters.push(owner);
      }
    }
    return rewriters.length === 0 ? undefined : { args, rewrittenBy: rewriters };
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
 * equal(verdict?.blockedBy, "confirm");
 * ```
 */
export function composeVerifyToolCall(
  hooks: readonly TaggedHook<VerifyToolCallHook>[],
): VerifyToolCallHook | undefined {
  if (hooks.length === 0) return undefined;
  return async function verifyToolCall(context, signal): Promise<VerifyToolCallResult | undefined> {
    for (const { owner, hook } of hooks) {
      let verdict: VerifyToolCallResult | undefined | void;
      try {
        verdict = await hook(context, signal);
      } catch (error) {
        return {
          block: true,
          blockedBy: owner,
          reason: `Tool ${context.tool.name} was blocked: ${
            ownerLabel(owner)
          } failed in verifyToolCall: ${messageOf(error)}`,
        };
      }
      if (verdict?.block) {
        return {
          block: true,
          blockedBy: owner,
          reason: verdict.reason || `Tool ${context.tool.name} was blocked by ${ownerLabel(owner)}`,
        };
      }
    }
    return undefined;
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
  return async function afterToolCall(context, signal): Promise<AfterToolCallResult | undefined> {
    let result: ToolResult = context.result;
    let isError = context.isError;
    for (const { owner, hook } of hooks) {
      try {
        const override = await hook({ ...context, result, isError }, signal);
        if (!override) continue;
        result = {
          content: override.content ?? result.content,
          details: override.details !== undefined ? override.details : result.details,
          terminate: override.terminate ?? result.terminate,
        };
        isError = override.isError ?? isError;
      } catch (error) {
        result = createErrorToolResult(
          `Tool ${context.tool.name} failed: ${ownerLabel(owner)} failed in afterToolCall: ${
            messageOf(error)
          }`,
        );
        isError = true;
      }
    }
    if (result === context.result && isError === context.isError) return undefined;
    return { ...result, isError };
  };
}

/**
 * Composes `shouldStopAfterTurn` hooks: the run stops when any says so. A hook that
 * throws stops the run too (fail closed).
 *
 * @param hooks Tagged hooks, in order.
 * @returns The composed hook, or `undefined` when there are none.
 *
 * @example Any hook may stop the run
 * ```ts
 * import { composeShouldStopAfterTurn } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * const stop = composeShouldStopAfterTurn([
 *   { owner: "a", hook: () => false },
 *   { owner: "b", hook: () => true },
 * ]);
 * // deno-lint-ignore no-explicit-any
 * equal(await stop!({} as any), true);
 * ```
 */
export function composeShouldStopAfterTurn(
  hooks: readonly TaggedHook<ShouldStopAfterTurnHook>[],
): ShouldStopAfterTurnHook | undefined {
  if (hooks.length === 0) return undefined;
  return async function shouldStopAfterTurn(context): Promise<boolean> {
    for (const { hook } of hooks) {
      try {
        if (await hook(context)) return true;
      } catch {
        return true;
      }
    }
    return false;
  };
}
