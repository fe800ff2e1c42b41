/**
 * What the audit log records per call.
 *
 * @module
 */

/** How a call ended: it ran (`ok`/`error`), or a plugin stopped it (`blocked`). */
export type AuditOutcome = "ok" | "error" | "blocked";

/** One line of the audit log: one finished tool call. */
export interface AuditEntry {
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
  /** `ok`, `error` (it ran and failed, or never got past validation), or `blocked`. */
  outcome: AuditOutcome;
  /** The error text the model read, for `error` and `blocked`. */
  error?: string;
  /** From `tool_execution_start` to `tool_execution_end`. */
  durationMs: number;
  /** The plugin that blocked the call, when known. */
  blockedBy?: string;
  /** The plugins that rewrote the arguments, when the loop reports them. */
  rewrittenBy?: string;
}
