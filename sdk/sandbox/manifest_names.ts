/**
 * The names a sandboxed plugin reports, checked before anything shows or registers them:
 * its own name and its tools' names end up in terminals, approval prompts, audit lines and
 * model requests, so they must be plain.
 *
 * @module
 */

import { pluginNameProblem, SANDBOXED_PLUGIN_NAME_PATTERN } from "../define_plugin.ts";
import { TOOL_NAME_PATTERN } from "../define_tool.ts";
import type { PluginManifest } from "./protocol.ts";

/**
 * Why a sandboxed plugin's manifest is refused for its names, if it is: a plugin name that
 * is the host's or not plain ({@linkcode SANDBOXED_PLUGIN_NAME_PATTERN}), or a tool name
 * that is not a tool name ({@linkcode TOOL_NAME_PATTERN}: what `defineTool` and the model
 * providers accept; a hostile plugin need not use `defineTool`).
 *
 * @param manifest What the sandbox reported.
 * @returns The problem (after `plugin "<name>" is refused: `), or `undefined`.
 *
 * @example A tool name with a terminal escape
 * ```ts
 * import { manifestNameProblem } from "./manifest_names.ts";
 * import { equal } from "node:assert/strict";
 *
 * const tool = { name: "read\u001b[2K", description: "", parameters: {} };
 * equal(
 *   manifestNameProblem({ name: "p", tools: [tool], hooks: [] }),
 *   'its tool "read\\u001b[2K" must have a name matching ^[a-zA-Z0-9_-]{1,64}$',
 * );
 * ```
 */
export function manifestNameProblem(manifest: PluginManifest): string | undefined {
  const name = manifest.name;
  const problem = pluginNameProblem(name);
  if (problem !== undefined) return problem;
  if (!SANDBOXED_PLUGIN_NAME_PATTERN.test(name)) {
    return `its name ${
      JSON.stringify(name)
    } must match ${SANDBOXED_PLUGIN_NAME_PATTERN.source} (no quotes, spaces or control characters, so texts naming it cannot be forged)`;
  }
  for (const tool of manifest.tools) {
    if (typeof tool?.name !== "string" || !TOOL_NAME_PATTERN.test(tool.name)) {
      return `its tool ${
        JSON.stringify(tool?.name)
      } must have a name matching ${TOOL_NAME_PATTERN.source}`;
    }
  }
  return undefined;
}
