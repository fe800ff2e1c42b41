/**
 * Composing plugins' `shouldStopAfterTurn` hooks.
 *
 * @module
 */

import type { ShouldStopAfterTurnHook } from "../core/hooks.ts";
import { type TaggedHook, within } from "./compose_hooks.ts";

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
    for (const { hook, timeoutMs } of hooks) {
      try {
        const answer = hook(context);
        const ms = typeof timeoutMs === "number" ? timeoutMs : Infinity;
        if (
          await (ms > 0 && Number.isFinite(ms)
            ? within(Promise.resolve(answer), ms, "shouldStopAfterTurn")
            : answer)
        ) {
          return true;
        }
      } catch {
        return true; // a throw or no answer in time fails closed: the run stops
      }
    }
    return false;
  };
}
