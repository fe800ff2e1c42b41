/**
 * What the audit log records per call.
 *
 * @module
 */

/** How a call ended: it ran (`ok`/`error`), or a plugin stopped it (`blocked`). */
export type AuditOutcome = "ok" | "error" | "blocked";

/**
 * The line written just before a call runs, after every `beforeToolCall` hook let it
 * through: if the process dies while the call runs, this line is what remains.
 */
export interface AuditIntent {
  /**
   * `intent`: the call is about to run. `deferred`: a hook deferred it for a person's
   * decision; it has not run (an approval on resume runs it, and its end line follows).
   */
  phase: "intent" | "deferred";
  /** With `deferred`: why, as the deferring hook said. */
  reason?: string;
  /** When the call was about to run (ISO 8601). */
  time: string;
  /** The call's id, as the model sent it. */
  toolCallId: string;
  /** The tool's name. */
  tool: string;
  /** The plugin that registered the tool (absent for the agent's own tools). */
  plugin?: string;
  /** The arguments it will run with (bounded: see `truncateStrings`). */
  args: unknown;
  /** The model's arguments, when a hook or coercion changed them. */
  originalArgs?: unknown;
  /** Who approved it, when the audit plugin was told how to ask (`approvedBy`). */
  approvedBy?: string;
}

/** One line of the audit log: one finished tool call. */
export interface AuditEntry {
  /** Marks the line as a call's end (its intent line, if it got that far, came before). */
  phase: "end";
  /** When the call ended (ISO 8601). */
  time: string;
  /** The call's id, as the model sent it. */
  toolCallId: string;
  /** The tool's name. */
  tool: string;
  /** The plugin that registered the tool (absent for the agent's own tools). */
  plugin?: string;
  /** The arguments it ran with (or, when it did not run, the ones the model sent). */
  args: unknown;
  /** The model's arguments, when they differ from `args` (a hook or coercion changed them). */
  originalArgs?: unknown;
  /**
   * `ok`; `error` (it ran and failed, or never got past validation, or the run was aborted
   * before it started); or `blocked` (a hook blocked it: see `blockedBy`).
   */
  outcome: AuditOutcome;
  /** The error text the model read, for `error` and `blocked`. */
  error?: string;
  /** From `tool_execution_start` to `tool_execution_end`. */
  durationMs: number;
  /** Who blocked the call: a plugin's name, or `"createAgent"` for the agent's own hooks. */
  blockedBy?: string;
  /** Who rewrote the arguments, in order (plugin names, or `"createAgent"`). */
  rewrittenBy?: string[];
}
