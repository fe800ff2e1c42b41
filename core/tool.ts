/**
 * What a tool is to the loop.
 *
 * @module
 */

import type { ImageContent, TextContent } from "./messages.ts";
import type { ToolSpec } from "./model.ts";
import type { ArgumentValidator } from "./schema.ts";

/** How a batch of tool calls runs: all at once, or one after another. */
export type ToolExecutionMode = "parallel" | "sequential";

/** What a tool does to the world, for policies to read (`readOnly` blocks `write` and `exec`). */
export type ToolEffect = "read" | "write" | "exec" | "net";

/** What a tool returns: content for the model, details for the host. */
export interface ToolResult<D = unknown> {
  /** Text or images the model reads. */
  content: (TextContent | ImageContent)[];
  /** Structured data for logs, UIs and policies; never sent to the model. */
  details?: D;
  /** Ask the loop to stop after this batch (only when every result in the batch asks). */
  terminate?: boolean;
}

/** What `execute` gets besides its parameters. */
export interface ToolExecuteContext<D = unknown> {
  /** The id of the call, as the model sent it. */
  toolCallId: string;
  /** Aborted when the run is aborted or the call times out: stop work and clean up. */
  signal: AbortSignal;
  /** Reports progress; each call becomes a `tool_execution_update` event. */
  update?: (partial: ToolResult<D>) => void;
}

/**
 * A tool the loop can run. Build one with `defineTool`, which types `params` from the
 * schema and checks the name.
 *
 * Contract for `execute`: throw on failure (the loop turns the error into an error
 * result the model reads); honour `signal`.
 */
export interface AgentTool<P = Record<string, unknown>, D = unknown> extends ToolSpec {
  /** A human-readable name for UIs. */
  readonly label?: string;
  /** `"sequential"` makes the whole batch it is called in sequential. */
  readonly executionMode?: ToolExecutionMode;
  /** Per-call timeout; overrides the agent's `toolTimeoutMs`. */
  readonly timeoutMs?: number;
  /** Character budget for this tool's results; overrides the agent's `maxResultChars`. */
  readonly maxResultChars?: number;
  /** What the tool does, for policies. */
  readonly effects?: readonly ToolEffect[];
  /** The plugin that registered the tool (set by `createAgent`), for error texts. */
  readonly plugin?: string;
  /** Shim for raw arguments, run before validation (for renamed or legacy fields). */
  readonly prepareArguments?: (raw: Record<string, unknown>) => Record<string, unknown>;
  /**
   * Validates arguments instead of the JSON Schema check (`defineTool` sets it for a
   * Standard Schema); `parameters` still go to the model and drive coercion.
   */
  readonly validateArguments?: ArgumentValidator;
  /** Runs the call. */
  execute(params: P, context: ToolExecuteContext<D>): Promise<ToolResult<D>> | ToolResult<D>;
}

/**
 * An error a tool throws to put structured `details` on its error result (for example
 * which permission was denied), beside the message the model reads.
 *
 * @example Failing with details
 * ```ts
 * import { ToolError } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * const error = new ToolError("Quota exceeded", { details: { retryAfterS: 30 } });
 * equal(error.message, "Quota exceeded");
 * ```
 */
export class ToolError extends Error {
  /** Goes to the error result's `details`. */
  readonly details?: unknown;
  /** The error result's content, when it is more than the message (images, several blocks). */
  readonly content?: (TextContent | ImageContent)[];

  /**
   * Creates a tool error.
   *
   * @param message The text the model reads (unless `content` is given).
   * @param options `details` for the result, `content` to show instead of the message,
   * `cause` for the host.
   */
  constructor(
    message: string,
    options: { details?: unknown; content?: (TextContent | ImageContent)[]; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "ToolError";
    this.details = options.details;
    this.content = options.content;
  }
}
