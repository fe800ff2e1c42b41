/**
 * `budget()`: caps tool calls, tokens and cost; stops the run gracefully when reached.
 *
 * @module
 */

import { definePlugin, type Plugin } from "@tack/agent";

/** Options of {@linkcode budget}. Every cap is optional; omitted caps are unlimited. */
export interface BudgetOptions {
  /** Tool calls the budget lets through (calls past it are blocked). */
  maxToolCalls?: number;
  /** Tokens (`usage.totalTokens` of assistant messages, summed). */
  maxTokens?: number;
  /** Cost (`usage.cost.total` of assistant messages, summed; the provider's unit, usually USD). */
  maxCost?: number;
  /**
   * `"run"` (the default): counts start again at each `prompt()` (not at `resume()` or
   * `continue()`, which go on with the same run); `"session"`: never reset.
   */
  scope?: "run" | "session";
}

/** What has been spent in the current scope. */
export interface BudgetSpent {
  /** Tool calls let through. */
  toolCalls: number;
  /** Tokens reported by assistant messages. */
  tokens: number;
  /** Cost reported by assistant messages. */
  cost: number;
}

/** The budget plugin, with what it has counted. */
export interface BudgetPlugin extends Plugin {
  /** Spent in the current scope (a snapshot). */
  readonly spent: BudgetSpent;
  /** Why the budget is exhausted, or `undefined` while it is not. */
  readonly exhausted: string | undefined;
}

function checkCap(name: string, value: unknown): number {
  if (value === undefined) return Infinity;
  if (typeof value !== "number" || !(value >= 0)) {
    throw new TypeError(
      `Cannot create budget plugin: ${name} must be a number >= 0, got ${
        typeof value === "number" ? value : JSON.stringify(value)
      }`,
    );
  }
  return value;
}

/**
 * A reported amount as a number to add: a finite number `>= 0`, else 0. One `NaN` (a
 * provider that passed on a server's `"many"`) would make the sum `NaN` for the rest of
 * the scope, and `NaN >= max` is never true: the cap would be off.
 */
function amount(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;
}

function formatCost(cost: number): string {
  return String(Math.round(cost * 1e6) / 1e6);
}

/**
 * A policy plugin that caps tool calls, tokens and cost per run (or per session). Once a
 * cap is reached, further calls are blocked with a reason naming it (`Budget reached:
 * 3 of 3 tool calls used this run (maxToolCalls); the run stops after this turn`) and the
 * run ends after the turn (`shouldStopAfterTurn`), without a further model call.
 *
 * Tool calls are counted as the budget lets them through, so put it after the plugins
 * that block (their blocked calls then do not count). Tokens and cost are read from each
 * assistant message's `usage` as it ends; a count that is not a finite number `>= 0`
 * (`NaN`, `Infinity`, a string a provider passed on) counts as 0, so it cannot turn a cap off.
 *
 * @param options The caps and their scope.
 * @returns The plugin, named `"budget"`, with `spent` and `exhausted`.
 * @throws {TypeError} When a cap is not a number >= 0 or the scope is unknown.
 *
 * @example Two tool calls at most
 * ```ts
 * import { createAgent, defineTool, scriptedModel, text, toolCall } from "@tack/agent";
 * import { budget } from "@tack/agent/plugins/budget";
 * import { equal } from "node:assert/strict";
 *
 * const ping = defineTool({
 *   name: "ping", description: "Pings", parameters: { type: "object" } as const,
 *   execute: () => ({ content: [{ type: "text", text: "pong" }] }),
 * });
 * const limit = budget({ maxToolCalls: 2 });
 * const agent = createAgent({
 *   model: scriptedModel([[toolCall("ping"), toolCall("ping"), toolCall("ping")], [text("never")]]),
 *   tools: [ping],
 *   plugins: [limit],
 * });
 * await agent.prompt("ping thrice");
 * equal(limit.spent.toolCalls, 2);
 * equal(agent.messages.at(-1)?.role, "toolResult"); // stopped before another model call
 * ```
 */
export function budget(options: BudgetOptions = {}): BudgetPlugin {
  const maxToolCalls = checkCap("maxToolCalls", options.maxToolCalls);
  const maxTokens = checkCap("maxTokens", options.maxTokens);
  const maxCost = checkCap("maxCost", options.maxCost);
  const scope = options.scope ?? "run";
  if (scope !== "run" && scope !== "session") {
    throw new TypeError(
      `Cannot create budget plugin: scope must be "run" or "session", got ${JSON.stringify(scope)}`,
    );
  }
  const where = scope === "run" ? "this run" : "this session";
  const spent: BudgetSpent = { toolCalls: 0, tokens: 0, cost: 0 };
  let callsExhausted = false;
  /** Between a run's start and its first message: whether that message would start a new run. */
  let startsWithPrompt = false;

  const usageExhausted = (): string | undefined => {
    if (spent.tokens >= maxTokens) {
      return `${spent.tokens} of ${maxTokens} tokens used ${where} (maxTokens)`;
    }
    if (spent.cost >= maxCost) {
      return `cost ${formatCost(spent.cost)} of ${formatCost(maxCost)} spent ${where} (maxCost)`;
    }
    return undefined;
  };
  const exhausted = (): string | undefined =>
    usageExhausted() ??
      (callsExhausted
        ? `${spent.toolCalls} of ${maxToolCalls} tool calls used ${where} (maxToolCalls)`
        : undefined);

  const plugin: BudgetPlugin = {
    name: "budget",
    description: "Caps tool calls, tokens and cost per run",
    permissions: {},
    get spent(): BudgetSpent {
      return { ...spent };
    },
    get exhausted(): string | undefined {
      return exhausted();
    },
    onEvent(event) {
      // A new run is one that starts with the user's message (prompt(), or a queued one).
      // A resumed run (decisions given to a deferred batch) and continue() (after an abort,
      // an error, or this budget's own stop) go on with the same run: they keep counting.
      if (event.type === "agent_start") {
        startsWithPrompt = scope === "run" && !event.resumed;
      } else if (event.type === "message_end" && startsWithPrompt) {
        startsWithPrompt = false;
        if (event.message.role === "user") {
          spent.toolCalls = 0;
          spent.tokens = 0;
          spent.cost = 0;
          callsExhausted = false;
        }
      }
      if (event.type === "message_end" && event.message.role === "assistant") {
        const usage = event.message.usage;
        spent.tokens += amount(usage?.totalTokens);
        spent.cost += amount(usage?.cost?.total);
      }
    },
    beforeToolCall: function budgetBeforeToolCall() {
      if (!usageExhausted() && spent.toolCalls < maxToolCalls) {
        spent.toolCalls++;
        return undefined;
      }
      callsExhausted = spent.toolCalls >= maxToolCalls;
      return {
        block: true,
        reason: `Budget reached: ${exhausted()}; the run stops after this turn`,
      };
    },
    shouldStopAfterTurn: function budgetShouldStopAfterTurn() {
      return exhausted() !== undefined;
    },
  };
  return definePlugin(plugin);
}
