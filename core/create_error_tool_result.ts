/**
 * The one way every failure becomes a result the model can read.
 *
 * @module
 */

import { invalidContentReason } from "./check_tool_result.ts";
import { ToolError, type ToolResult } from "./tool.ts";
import { thrownText } from "./thrown_text.ts";

/**
 * Builds the result of a failed call: the message as text content, with optional details.
 *
 * @param message What went wrong, in words the model can act on.
 * @param details Structured data for the host (never sent to the model).
 * @returns A result to pair with `isError: true`.
 *
 * @example An unknown tool
 * ```ts
 * import { createErrorToolResult } from "@tack/agent";
 * import { deepEqual } from "node:assert/strict";
 *
 * deepEqual(createErrorToolResult("Tool banana not found"), {
 *   content: [{ type: "text", text: "Tool banana not found" }],
 *   details: {},
 * });
 * ```
 */
export function createErrorToolResult(message: string, details: unknown = {}): ToolResult {
  return { content: [{ type: "text", text: message }], details };
}

/**
 * Turns whatever a tool or hook threw into an error result: the error's message (or its
 * string form) as text, and a {@linkcode ToolError}'s details (and content, if it has any).
 *
 * @param error What was thrown.
 * @param prefix Optional words before the message (e.g. which plugin's hook failed).
 * @param plugin In a sandbox, the plugin whose grants a permission denial is about; without
 * it, a denial is this process's own ({@linkcode permissionDeniedMessage}).
 * @returns An error result; a Deno permission denial becomes `Permission denied: …` with
 * `details.permission = { name, value }`.
 *
 * @example A thrown Error
 * ```ts
 * import { errorToToolResult } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * const result = errorToToolResult(new Error("disk full"));
 * equal(result.content[0].type === "text" && result.content[0].text, "disk full");
 * const failed = errorToToolResult(new TypeError("fetch failed", { cause: new Error("dns error") }));
 * equal(failed.content[0].type === "text" && failed.content[0].text, "fetch failed (dns error)");
 * ```
 */
export function errorToToolResult(error: unknown, prefix = "", plugin?: string): ToolResult {
  try {
    return resultOfError(error, prefix, plugin);
  } catch {
    // An error whose message or cause throws when read (a getter, a revoked proxy).
    return createErrorToolResult(prefix + thrownText(error));
  }
}

function resultOfError(error: unknown, prefix: string, plugin?: string): ToolResult {
  const permission = permissionDenial(error);
  if (permission !== undefined) {
    return createErrorToolResult(prefix + permissionDeniedMessage(permission, plugin), {
      permission,
    });
  }
  if (!(error instanceof ToolError)) {
    return createErrorToolResult(
      prefix + (error instanceof Error ? withCauses(error) : thrownText(error)),
    );
  }
  // A ToolError's message is what its tool chose to tell the model: its cause is not added.
  const message = prefix + (error.message || error.name);
  if (!error.content?.length) return createErrorToolResult(message, error.details ?? {});
  // Its content goes to the model as a result's would, so it is held to the same check.
  const problem = invalidContentReason(error.content);
  if (problem !== undefined) {
    return createErrorToolResult(
      `${message} (its error content was left out: ${problem})`,
      error.details ?? {},
    );
  }
  const result = createErrorToolResult(message, error.details ?? {});
  result.content = prefix ? [{ type: "text", text: prefix }, ...error.content] : error.content;
  return result;
}

/**
 * An error's message followed by its causes' (`fetch failed (error sending request …)`):
 * `fetch` and many libraries put the reason a model can act on in `cause`. Three levels at
 * most; a cause whose message is already in the text is skipped. Not for a `ToolError`.
 */
function withCauses(error: Error): string {
  let text = error.message || error.name;
  let cause = error.cause;
  for (let depth = 0; depth < 3 && cause instanceof Error; depth++) {
    if (cause.message && !text.includes(cause.message)) text += ` (${cause.message})`;
    cause = cause.cause;
  }
  return text;
}

/** A Deno permission a tool was denied: its name (`read`, `net`, …) and what it asked for. */
export interface PermissionDenial {
  /** The permission: `read`, `write`, `net`, `env`, `run`, `ffi`, `sys` or `import`. */
  name: string;
  /** The path, host, variable or command asked for, when Deno names one. */
  value?: string;
  /**
   * For a `run` denial: the environment variable the spawn set (`LD_PRELOAD`,
   * `LD_LIBRARY_PATH`, …), which Deno allows only with full `run` access.
   */
  variable?: string;
}

const DENIAL_PATTERN = /^Requires (\w+) access(?: to "((?:[^"\\]|\\.)*)")?/;
// A spawn of a granted program with a loader variable set (Deno 2.9):
// "Requires --allow-run permissions to spawn subprocess with LD_PRELOAD environment variable."
const RUN_ENV_PATTERN =
  /^Requires --allow-run permissions to spawn subprocess with (\S+) environment variable/;

function denialOf(error: unknown): PermissionDenial | undefined {
  const message = (error as Error).message;
  const variable = RUN_ENV_PATTERN.exec(message)?.[1];
  if (variable !== undefined) return { name: "run", variable };
  const match = DENIAL_PATTERN.exec(message);
  if (match === null) return { name: "unknown" };
  return match[2] === undefined ? { name: match[1] } : { name: match[1], value: match[2] };
}

/**
 * Recognises a Deno permission denial: a `Deno.errors.NotCapable`, a `TypeError` whose
 * `cause` is one (as `fetch` throws), or the `TypeError` of a denied remote import.
 * Only called on the error path: a call that does not throw never pays for it.
 *
 * @param error What a tool threw.
 * @returns The permission and value asked for, or `undefined` when it is not a denial.
 *
 * @example A denied read
 * ```ts
 * import { permissionDenial } from "./create_error_tool_result.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * const error = new Deno.errors.NotCapable('Requires read access to "/etc/passwd", run again with the --allow-read flag');
 * deepEqual(permissionDenial(error), { name: "read", value: "/etc/passwd" });
 * deepEqual(permissionDenial(new Error("disk full")), undefined);
 * const preload = new Deno.errors.NotCapable(
 *   "Requires --allow-run permissions to spawn subprocess with LD_PRELOAD environment variable. Alternatively, spawn with the environment variable unset.",
 * );
 * deepEqual(permissionDenial(preload), { name: "run", variable: "LD_PRELOAD" });
 * ```
 */
export function permissionDenial(error: unknown): PermissionDenial | undefined {
  if (!(error instanceof Error)) return undefined;
  if (error.name === "NotCapable") return denialOf(error);
  const cause = error.cause;
  if (cause instanceof Error && cause.name === "NotCapable") return denialOf(cause);
  if (error instanceof TypeError && DENIAL_PATTERN.test(error.message)) return denialOf(error);
  return undefined;
}

/** Deno's permission names: a denial naming one can say which flag grants it. */
const PERMISSION_NAMES = new Set(["read", "write", "net", "env", "run", "ffi", "sys", "import"]);

/**
 * The text of a permission denial's error result. In a sandbox the denial is about the
 * plugin's grants; anywhere else it is about this process's, and the text says so, with the
 * flag that grants it (an in-process plugin runs with exactly what its host was given).
 *
 * @param denial The permission and value that were denied.
 * @param plugin The sandboxed plugin whose grants left it out; omitted for this process.
 * @returns `Permission denied: <name> access to "<value>" is not granted to plugin "<plugin>"`,
 * or `… is not granted to this process (grant it with --allow-<name>)`; for a spawn with a
 * loader variable set, `run access to spawn a program with <variable> set`, saying that it
 * needs full `run` access.
 *
 * @example A denied read in a sandboxed plugin, and in the host's own process
 * ```ts
 * import { permissionDeniedMessage } from "./create_error_tool_result.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(
 *   permissionDeniedMessage({ name: "read", value: "/etc/passwd" }, "weather"),
 *   'Permission denied: read access to "/etc/passwd" is not granted to plugin "weather"',
 * );
 * equal(
 *   permissionDeniedMessage({ name: "net", value: "example.com" }),
 *   'Permission denied: net access to "example.com" is not granted to this process (grant it with --allow-net)',
 * );
 * equal(
 *   permissionDeniedMessage({ name: "run", variable: "LD_PRELOAD" }, "weather"),
 *   'Permission denied: run access to spawn a program with LD_PRELOAD set is not granted to plugin "weather" (that environment variable needs full run access, run: true; spawn without it)',
 * );
 * ```
 */
export function permissionDeniedMessage(denial: PermissionDenial, plugin?: string): string {
  if (denial.variable !== undefined) {
    const denied =
      `Permission denied: ${denial.name} access to spawn a program with ${denial.variable} set is not granted`;
    return plugin !== undefined
      ? `${denied} to plugin ${
        JSON.stringify(plugin)
      } (that environment variable needs full run access, run: true; spawn without it)`
      : `${denied} to this process (that environment variable needs full run access, --allow-run; spawn without it)`;
  }
  const what = denial.value === undefined ? "" : ` to ${JSON.stringify(denial.value)}`;
  const denied = `Permission denied: ${denial.name} access${what} is not granted`;
  if (plugin !== undefined) return `${denied} to plugin ${JSON.stringify(plugin)}`;
  return PERMISSION_NAMES.has(denial.name)
    ? `${denied} to this process (grant it with --allow-${denial.name})`
    : `${denied} to this process`;
}
