/**
 * Configuration of one run of the loop.
 *
 * @module
 */

import type {
  AfterToolCallHook,
  BeforeToolCallHook,
  PrepareTurnHook,
  ShouldStopAfterTurnHook,
  VerifyToolCallHook,
} from "./hooks.ts";
import type { Message, UserMessage } from "./messages.ts";
import type { Model } from "./model.ts";
import type { AgentTool, ToolExecutionMode } from "./tool.ts";

/** Default per-call timeout: two minutes. */
export const DEFAULT_TOOL_TIMEOUT_MS = 120_000;
/** Default character budget of one tool result. */
export const DEFAULT_MAX_RESULT_CHARS = 50_000;
/** Default cap on model turns in one run. */
export const DEFAULT_MAX_TURNS = 50;

/** What the loop runs with; only `model` is required. */
export interface LoopConfig {
  /** The model to stream turns from. */
  model: Model;
  /** Default `"parallel"`; any called tool with `executionMode: "sequential"` overrides it. */
  toolExecution?: ToolExecutionMode;
  /**
   * At most this many calls of a parallel batch run at once (default: no limit). Calls past
   * the cap wait in call order; a call's timeout counts from when it starts executing.
   */
  maxConcurrency?: number;
  /** Per-call timeout in ms (default 120 000); `Infinity` or 0 for none. */
  toolTimeoutMs?: number;
  /**
   * How long a call's hooks may take before the call ends as timed out (default: the
   * call's own timeout). A hook that waits for a person (a confirmation prompt) wants
   * `Infinity`: the run's abort still bounds it.
   */
  hookTimeoutMs?: number;
  /** Character budget of one result's text (default 50 000); `Infinity` for none. */
  maxResultChars?: number;
  /** Model turns before the run ends with a clear message (default 50). */
  maxTurns?: number;
  /** Runs before each model call; may choose that call's tools and system prompt. */
  prepareTurn?: PrepareTurnHook;
  /** Runs after validation, before execution; may block or rewrite. */
  beforeToolCall?: BeforeToolCallHook;
  /** The last, block-only check, on the final arguments. */
  verifyToolCall?: VerifyToolCallHook;
  /** Runs after execution; may override the result. */
  afterToolCall?: AfterToolCallHook;
  /** Asked after each turn; `true` ends the run. */
  shouldStopAfterTurn?: ShouldStopAfterTurnHook;
  /** Messages to inject after the current turn (steering). Contract: must not throw. */
  getSteeringMessages?: () => UserMessage[];
  /** Messages to run once the agent would stop (follow-ups). Contract: must not throw. */
  getFollowUpMessages?: () => UserMessage[];
  /**
   * Rewrites what the model is sent each turn (pruning, injected context) without
   * touching the transcript. Contract: must not throw.
   */
  transformContext?: (messages: readonly Message[]) => readonly Message[];
}

/** Index of tools by name, built once per tool list. */
export type ToolIndex = ReadonlyMap<string, AgentTool>;

/**
 * Builds the name index the executor looks tools up in.
 *
 * @param tools The tools of the run.
 * @returns A map from name to tool.
 */
export function indexTools(tools: readonly AgentTool[]): ToolIndex {
  return new Map(tools.map((tool) => [tool.name, tool]));
}

/**
 * Why a timeout is not one: it must be a number of milliseconds, 0 or more (`0` and
 * `Infinity` mean none). A negative number, `NaN` or a string (`"30000"` read from a file)
 * would otherwise turn the bound off unnoticed.
 *
 * @param value The timeout given (`undefined`: none given).
 * @returns Why it is refused, or `undefined`.
 *
 * @example
 * ```ts
 * import { timeoutProblem } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * equal(timeoutProblem(30_000), undefined);
 * equal(timeoutProblem(Infinity), undefined);
 * equal(timeoutProblem(-1), "must be a number of ms, 0 or more (0 or Infinity: none), got -1");
 * equal(timeoutProblem("200"), 'must be a number of ms, 0 or more (0 or Infinity: none), got "200"');
 * ```
 */
export function timeoutProblem(value: unknown): string | undefined {
  if (value === undefined || (typeof value === "number" && value >= 0)) return undefined;
  const shown = typeof value === "string" ? JSON.stringify(value) : String(value);
  return `must be a number of ms, 0 or more (0 or Infinity: none), got ${shown}`;
}

/** A timeout, when it is one. */
function usable(value: number | undefined): number | undefined {
  return timeoutProblem(value) === undefined ? value : undefined;
}

/**
 * The timeout of the loop's turn hooks (`prepareTurn`, `shouldStopAfterTurn`): `hookTimeoutMs`,
 * else `toolTimeoutMs`, else two minutes, skipping a value that is not a timeout as
 * {@linkcode timeoutsFor} does (taken as it was, a negative one left those hooks unbounded).
 *
 * @param config The agent's limits.
 * @returns The limit in ms.
 *
 * @example
 * ```ts
 * import { turnHookTimeoutMs } from "./loop_config.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(turnHookTimeoutMs({ hookTimeoutMs: -1, toolTimeoutMs: 50 }), 50);
 * ```
 */
export function turnHookTimeoutMs(
  config: Pick<LoopConfig, "toolTimeoutMs" | "hookTimeoutMs">,
): number {
  return usable(config.hookTimeoutMs) ?? usable(config.toolTimeoutMs) ?? DEFAULT_TOOL_TIMEOUT_MS;
}

/**
 * A call's timeout and its hooks' timeout, from the tool and the config: the tool's own
 * `timeoutMs`, else the agent's `toolTimeoutMs`, else two minutes; hooks get
 * `hookTimeoutMs` when set, else the call's timeout.
 *
 * @param tool The tool being called.
 * @param config The agent's limits.
 * @returns Both limits in ms.
 *
 * @example
 * ```ts
 * import { timeoutsFor } from "@tack/agent";
 * import { deepEqual } from "node:assert/strict";
 *
 * const tool = { name: "t", description: "", parameters: {}, timeoutMs: 5, execute: () => ({ content: [] }) };
 * deepEqual(timeoutsFor(tool, { hookTimeoutMs: Infinity }), { callMs: 5, hookMs: Infinity });
 * ```
 */
export function timeoutsFor(
  tool: AgentTool,
  config: Pick<LoopConfig, "toolTimeoutMs" | "hookTimeoutMs">,
): { callMs: number; hookMs: number } {
  // A timeout that is not one (negative, NaN, a string: `runLoop` and raw tools are not
  // checked as createAgent and defineTool check them) is not taken as "none".
  const callMs = usable(tool.timeoutMs) ?? usable(config.toolTimeoutMs) ?? DEFAULT_TOOL_TIMEOUT_MS;
  return { callMs, hookMs: usable(config.hookTimeoutMs) ?? callMs };
}
