/**
 * MCP tool annotations as Tack effects, so policies can see what an MCP tool does.
 *
 * @module
 */

import type { ToolEffect } from "@tack/agent";

/** The MCP annotations that say what a tool does (all hints, as the spec calls them). */
export interface McpToolHints {
  /** The tool does not change its environment (default `false`). */
  readOnlyHint?: boolean;
  /** Its changes may destroy data (default `true`); not mapped, Tack has no such effect. */
  destructiveHint?: boolean;
  /** It reaches an open world, such as the web (default `true`). */
  openWorldHint?: boolean;
}

/**
 * Maps MCP tool annotations to Tack effects. A hint that is absent takes the MCP
 * specification's default, which assumes the worst (not read-only, open world): a tool
 * is `"read"` only when it says `readOnlyHint: true`, otherwise `"write"`; it also has
 * `"net"` unless it says `openWorldHint: false`.
 *
 * @param hints The tool's `annotations`, if any.
 * @returns Its effects, `read` or `write` first, then `net`.
 *
 * @example A read-only, closed-world tool and an unannotated one
 * ```ts
 * import { toolEffects } from "@tack/agent/plugins/mcp";
 * import { deepEqual } from "node:assert/strict";
 *
 * deepEqual(toolEffects({ readOnlyHint: true, openWorldHint: false }), ["read"]);
 * deepEqual(toolEffects(undefined), ["write", "net"]);
 * ```
 */
export function toolEffects(hints: McpToolHints | undefined): ToolEffect[] {
  const effects: ToolEffect[] = [hints?.readOnlyHint === true ? "read" : "write"];
  if (hints?.openWorldHint !== false) effects.push("net");
  return effects;
}
