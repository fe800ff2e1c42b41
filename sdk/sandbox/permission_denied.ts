/**
 * Inside a sandbox: what a tool threw, as the error result the model reads. Deno's
 * denials (`NotCapable`) are mapped by the core; this adds what only a sandbox sees: an
 * import the cache does not hold (`--cached-only`), a module hidden by the OS layer, and
 * a symlink in a granted folder that points out of it.
 *
 * @module
 */

import {
  errorToToolResult,
  type PermissionDenial,
  permissionDeniedMessage,
} from "../../core/create_error_tool_result.ts";
import type { ToolResult } from "../../core/tool.ts";
import { pathWithin } from "./path_within.ts";

/** What the child knows about its own grants, to recognise denials the OS layer caused. */
export interface SandboxFacts {
  /** The plugin's name, for the message. */
  plugin: string;
  /** Absolute paths the plugin may read. `true`: everything. */
  read: boolean | readonly string[];
  /** Whether an OS layer (bubblewrap) hides everything outside the grants. */
  confined: boolean;
}

function inside(path: string, roots: boolean | readonly string[]): boolean {
  if (roots === true) return true;
  if (roots === false) return false;
  return roots.some((root) => pathWithin(path, root));
}

function symlinkTarget(path: string): string | undefined {
  try {
    const target = Deno.readLinkSync(path);
    if (target.startsWith("/")) return target;
    return path.slice(0, path.lastIndexOf("/") + 1) + target;
  } catch {
    return undefined;
  }
}

/**
 * Recognises the denials only a sandbox produces.
 *
 * @param error What a tool threw inside the sandbox.
 * @param facts The plugin's name, read grant and whether the OS layer is on.
 * @returns The denied permission and value, or `undefined`.
 *
 * @example An npm package the host did not cache
 * ```ts
 * import { sandboxDenial } from "./permission_denied.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * const error = new TypeError(
 *   'Failed loading https://registry.npmjs.org/left-pad for package "left-pad"\n' +
 *     '    0: npm package not found in cache: "left-pad", --cached-only is specified.',
 * );
 * deepEqual(sandboxDenial(error, { plugin: "p", read: [], confined: true }), {
 *   name: "import",
 *   value: "npm:left-pad",
 * });
 * ```
 */
export function sandboxDenial(error: unknown, facts: SandboxFacts): PermissionDenial | undefined {
  if (!(error instanceof Error)) return undefined;
  const npm = /npm package not found in cache: "([^"]+)", --cached-only/.exec(error.message);
  if (npm !== null) return { name: "import", value: `npm:${npm[1]}` };
  if (/--cached-only is specified/.test(error.message)) {
    const url = /Specifier not found in cache: "([^"]+)"/.exec(error.message);
    return url === null ? { name: "import" } : { name: "import", value: url[1] };
  }
  if (!facts.confined) return undefined;
  const module = /Module not found "file:\/\/([^"]+)"/.exec(error.message);
  if (module !== null) {
    const path = decodeURIComponent(module[1]);
    return inside(path, facts.read) ? undefined : { name: "read", value: path };
  }
  if (error.name === "NotFound") {
    const path = /'([^']+)'$/.exec(error.message)?.[1];
    if (path === undefined || !inside(path, facts.read)) return undefined;
    const target = symlinkTarget(path);
    if (target !== undefined && !inside(target, facts.read)) return { name: "read", value: target };
  }
  return undefined;
}

/**
 * Turns what a sandboxed tool or hook threw into its error result: a denial (the core's
 * or the sandbox's) becomes `Permission denied: …` with `details.permission`; a
 * `ToolError` keeps its details even when it comes from another copy of Tack.
 *
 * @param error What was thrown.
 * @param facts The plugin's name, read grant and whether the OS layer is on.
 * @returns The error result.
 *
 * @example A denied read
 * ```ts
 * import { sandboxErrorResult } from "./permission_denied.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * const error = new Deno.errors.NotCapable('Requires read access to "/etc/passwd", run again with the --allow-read flag');
 * deepEqual(sandboxErrorResult(error, { plugin: "weather", read: [], confined: true }).details, {
 *   permission: { name: "read", value: "/etc/passwd" },
 * });
 * ```
 */
export function sandboxErrorResult(error: unknown, facts: SandboxFacts): ToolResult {
  const denial = sandboxDenial(error, facts);
  if (denial !== undefined) {
    return {
      content: [{ type: "text", text: permissionDeniedMessage(denial, facts.plugin) }],
      details: { permission: denial },
    };
  }
  const result = errorToToolResult(error, "", facts.plugin);
  if (error instanceof Error && error.name === "ToolError" && "details" in error) {
    return { ...result, details: (error as { details?: unknown }).details ?? {} };
  }
  return result;
}
