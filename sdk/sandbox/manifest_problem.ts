/**
 * What a sandboxed plugin reports, checked before anything shows or registers it: its own
 * name and its tools' names end up in terminals, approval prompts, audit lines and model
 * requests, so they must be plain; its tools' schemas must compile (the child does not
 * check them: `defineTool` leaves that to registration, so a child never loads the
 * validator), and must be small enough for that check to be quick.
 *
 * @module
 */

import { pluginNameProblem, SANDBOXED_PLUGIN_NAME_PATTERN } from "../define_plugin.ts";
import { TOOL_NAME_PATTERN } from "../define_tool.ts";
import { SCHEMA_LIMITS } from "../schema_size.ts";
import { untrustedSchemaProblem } from "../untrusted_schemas.ts";
import type { PluginManifest } from "./protocol.ts";

/**
 * How much a sandboxed plugin's manifest may hold: at most 1,000 tools, and schemas within
 * {@linkcode SCHEMA_LIMITS} (the host compiles every schema at load, before anything of
 * the plugin is trusted). A manifest past one is refused before anything is compiled.
 */
const MANIFEST_LIMITS: Readonly<typeof SCHEMA_LIMITS & { tools: number }> = Object
  .freeze({ tools: 1000, ...SCHEMA_LIMITS });

/**
 * Why a sandboxed plugin's manifest is refused, if it is: a plugin name that is the host's
 * or not plain ({@linkcode SANDBOXED_PLUGIN_NAME_PATTERN}), a tool name that is not a tool
 * name ({@linkcode TOOL_NAME_PATTERN}: what `defineTool` and the model providers accept; a
 * hostile plugin need not use `defineTool`), a tool whose parameters are not a JSON Schema
 * object, tools or schemas past {@linkcode MANIFEST_LIMITS}, or a tool schema that does not
 * compile.
 *
 * @param manifest What the sandbox reported.
 * @returns The problem (after `plugin "<name>" is refused: `), or `undefined`.
 *
 * @example A tool name with a terminal escape
 * ```ts
 * import { manifestProblem } from "./manifest_problem.ts";
 * import { equal } from "node:assert/strict";
 *
 * const tool = { name: "read\u001b[2K", description: "", parameters: {} };
 * equal(
 *   manifestProblem({ name: "p", tools: [tool], hooks: [] }),
 *   'its tool "read\\u001b[2K" must have a name matching ^[a-zA-Z0-9_-]{1,64}$',
 * );
 * ```
 *
 * @example A schema that does not compile
 * ```ts
 * import { manifestProblem } from "./manifest_problem.ts";
 * import { match } from "node:assert/strict";
 *
 * const tool = { name: "find", description: "", parameters: { type: "string", pattern: "(" } };
 * match(
 *   manifestProblem({ name: "p", tools: [tool], hooks: [] })!,
 *   /^its tool "find" has an invalid parameter schema: pattern "\(" is not valid RE2 syntax/,
 * );
 * ```
 */
export function manifestProblem(manifest: PluginManifest): string | undefined {
  const name = manifest.name;
  const problem = pluginNameProblem(name);
  if (problem !== undefined) return problem;
  if (!SANDBOXED_PLUGIN_NAME_PATTERN.test(name)) {
    return `its name ${
      JSON.stringify(name)
    } must match ${SANDBOXED_PLUGIN_NAME_PATTERN.source} (no quotes, spaces or control characters, so texts naming it cannot be forged)`;
  }
  if (manifest.tools.length > MANIFEST_LIMITS.tools) {
    return `it has ${manifest.tools.length} tools, more than ${MANIFEST_LIMITS.tools}`;
  }
  for (const tool of manifest.tools) {
    if (typeof tool?.name !== "string" || !TOOL_NAME_PATTERN.test(tool.name)) {
      return `its tool ${
        JSON.stringify(tool?.name)
      } must have a name matching ${TOOL_NAME_PATTERN.source}`;
    }
  }
  return untrustedSchemaProblem(manifest.tools);
}
