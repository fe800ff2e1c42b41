/**
 * Tack names for MCP tools: prefixed, sanitized to the pattern models accept, unique.
 *
 * @module
 */

const MAX_LENGTH = 64;

/**
 * Turns an MCP tool name into a Tack tool name matching `^[a-zA-Z0-9_-]{1,64}$`: the
 * prefix and `_` before it, every other character replaced by `_`, cut to 64 characters,
 * and a `_2`, `_3`, … suffix when the result is already in `taken`. The name is added to
 * `taken`.
 *
 * @param prefix Put before the name with a `_` (an empty prefix adds nothing).
 * @param mcpName The tool's name on the MCP server (`fetch.page/v2`).
 * @param taken Names already given; the result is added to it.
 * @returns A unique, valid Tack tool name.
 *
 * @example Prefixing and sanitizing
 * ```ts
 * import { toolName } from "@tack/agent/plugins/mcp";
 * import { equal } from "node:assert/strict";
 *
 * const taken = new Set<string>();
 * equal(toolName("web", "fetch.page/v2", taken), "web_fetch_page_v2");
 * equal(toolName("web", "fetch_page/v2", taken), "web_fetch_page_v2_2");
 * ```
 */
export function toolName(prefix: string, mcpName: string, taken: Set<string>): string {
  const clean = (s: string) => s.replace(/[^a-zA-Z0-9_-]/g, "_");
  const joined = prefix === "" ? clean(mcpName) : `${clean(prefix)}_${clean(mcpName)}`;
  const base = (joined === "" ? "tool" : joined).slice(0, MAX_LENGTH);
  let name = base;
  for (let n = 2; taken.has(name); n++) {
    const suffix = `_${n}`;
    name = base.slice(0, MAX_LENGTH - suffix.length) + suffix;
  }
  taken.add(name);
  return name;
}
