/**
 * The state of one running sandbox child, as its connection keeps it.
 *
 * @module
 */

import type { ToolResult } from "../../core/tool.ts";
import type { PluginManifest } from "./protocol.ts";
import type { SandboxChild } from "./sandbox_child.ts";
import type { TranscriptCursor } from "./transcript_cursor.ts";
import type { SandboxCallResult } from "./sandbox_connection.ts";

/** A call waiting for its child's answer. */
export interface Pending {
  tool: string;
  resolve: (outcome: SandboxCallResult) => void;
  update?: (partial: ToolResult) => void;
}

/** One running child: what it was asked and has not answered, and how far it has read. */
export interface Live {
  child: SandboxChild;
  ready: Promise<PluginManifest>;
  pending: Map<number, Pending>;
  hooks: Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>;
  cancelled: Set<number>;
  /** Waiting for every cancelled call to answer (or the child to be killed). */
  quiet: (() => void)[];
  fault?: string;
  /** The fault speaks for itself: error texts leave out the child's stderr. */
  bare?: boolean;
  /** What this child has seen of the transcript. */
  cursor: TranscriptCursor;
  /** What this child has seen of the hooks' tool list. */
  toolsCursor: TranscriptCursor;
  /** It reported its manifest. */
  started: boolean;
}

/**
 * Wakes those waiting for a child to be quiet (every cancelled call answered), or all of them
 * when `force` (the child is gone).
 *
 * @param live The child.
 * @param force Wake them whether or not calls are still cancelled.
 *
 * @example
 * ```ts ignore
 * wakeIfQuiet(live); // after a cancelled call answered
 * ```
 */
export function wakeIfQuiet(live: Live, force = false): void {
  if (!force && live.cancelled.size > 0) return;
  for (const wake of live.quiet.splice(0)) wake();
}
