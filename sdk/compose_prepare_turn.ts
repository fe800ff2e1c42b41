/**
 * Composes `prepareTurn` hooks: each, in plugin order then the agent's own, sees the
 * tools and system prompt the hooks before it chose.
 *
 * @module
 */

import type { PrepareTurnHook, PrepareTurnResult } from "../core/hooks.ts";
import { ownerLabel } from "../core/owner_label.ts";
import type { AgentTool } from "../core/tool.ts";
import { invalidSchemaReason } from "../core/validate_tool_arguments.ts";
import { type TaggedHook, within } from "./compose_hooks.ts";
import { thrownText } from "../core/thrown_text.ts";
import { invalidEffectsReason } from "./invalid_effects.ts";

/**
 * Composes `prepareTurn` hooks into one. No hooks: `undefined` (the loop skips the step).
 * A hook that throws stops the chain; the error names its plugin. So does one choosing a
 * tool it was not given (one nobody registered) whose schema does not compile: `defineTool`
 * leaves that check to registration, and such a tool must fail before the model sees it,
 * not at a call. A hook tagged with a
 * numeric `timeoutMs` (finite and positive) that does not answer within it fails the same
 * way (a computed one does not apply: a turn has no tool).
 *
 * @param hooks Tagged hooks, in order.
 * @returns The composed hook, or `undefined`.
 *
 * @example Two hooks narrowing the tools in turn
 * ```ts
 * import { composePrepareTurn } from "@tack/agent";
 * import { deepEqual } from "node:assert/strict";
 *
 * const tool = (name: string) => ({
 *   name, description: "", parameters: { type: "object" }, execute: () => ({ content: [] }),
 * });
 * const hook = composePrepareTurn([
 *   { owner: "a", hook: ({ tools }) => ({ tools: tools.filter((t) => t.name !== "write") }) },
 *   { owner: "b", hook: ({ tools }) => ({ tools: tools.filter((t) => t.name !== "bash") }) },
 * ]);
 * const chosen = await hook!({
 *   turn: 1, systemPrompt: "", messages: [], tools: [tool("read"), tool("write"), tool("bash")],
 * }, new AbortController().signal);
 * deepEqual(chosen?.tools?.map((t) => t.name), ["read"]);
 * ```
 */
export function composePrepareTurn(
  hooks: readonly TaggedHook<PrepareTurnHook>[],
): PrepareTurnHook | undefined {
  if (hooks.length === 0) return undefined;
  return async function prepareTurn(context, signal) {
    let current = context;
    const chosen: PrepareTurnResult = {};
    // The tools the run has (registered, so checked) and those checked since.
    let checked: Set<AgentTool> | undefined;
    for (const { owner, hook, timeoutMs } of hooks) {
      let answer: PrepareTurnResult | undefined | void;
      try {
        const pending = hook(current, signal);
        answer = typeof timeoutMs === "number" && timeoutMs > 0 && Number.isFinite(timeoutMs)
          ? await within(Promise.resolve(pending), timeoutMs, "prepareTurn")
          : await pending;
      } catch (error) {
        const text = thrownText(error);
        throw new Error(`${ownerLabel(owner)}: ${text}`);
      }
      if (!answer) continue;
      if (answer.tools !== undefined) {
        checked ??= new Set(context.tools);
        for (const tool of answer.tools) {
          if (checked.has(tool)) continue;
          const problem = invalidSchemaReason(tool.parameters);
          if (problem !== undefined) {
            throw new Error(
              `${
                ownerLabel(owner)
              }: it chose tool "${tool.name}", whose parameter schema is invalid: ${problem}`,
            );
          }
          // The policies decide by effects: a misspelt one ("Write") would pass them all.
          const badEffects = invalidEffectsReason(tool.effects);
          if (badEffects !== undefined) {
            throw new Error(
              `${
                ownerLabel(owner)
              }: it chose tool "${tool.name}", whose effects are invalid: ${badEffects}`,
            );
          }
          checked.add(tool);
        }
      }
      if (answer.tools !== undefined) chosen.tools = answer.tools;
      if (answer.systemPrompt !== undefined) chosen.systemPrompt = answer.systemPrompt;
      if (answer.maxConcurrency !== undefined) chosen.maxConcurrency = answer.maxConcurrency;
      current = {
        ...current,
        tools: chosen.tools ?? current.tools,
        systemPrompt: chosen.systemPrompt ?? current.systemPrompt,
      };
    }
    return chosen;
  };
}
