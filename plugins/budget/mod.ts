/**
 * Budgets: cap tool calls, tokens and cost per run; the run stops gracefully when a cap
 * is reached.
 *
 * @example
 * ```ts
 * import budget from "@tack/agent/plugins/budget";
 * import { equal } from "node:assert/strict";
 *
 * const limit = budget({ maxToolCalls: 20, maxCost: 0.5 });
 * equal(limit.exhausted, undefined);
 * ```
 *
 * @module
 */

export { budget, type BudgetOptions, type BudgetPlugin, type BudgetSpent } from "./budget.ts";
export { budget as default } from "./budget.ts";
