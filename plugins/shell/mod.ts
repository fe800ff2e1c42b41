/**
 * The `shell` plugin: one tool, `bash {command, timeout?}`, running real bash in the
 * workspace root. Running a shell grants everything the shell can do: its permission
 * (`run`) escapes every other Deno permission, so treat this plugin as full access and
 * pair it with policies (`confirm`, `rules`) where that matters.
 *
 * @example An agent that runs a command
 * ```ts
 * import { createAgent, scriptedModel, text, toolCall } from "@tack/agent";
 * import { shell } from "@tack/agent/plugins/shell";
 * import { equal } from "node:assert/strict";
 *
 * const agent = createAgent({
 *   model: scriptedModel([[toolCall("bash", { command: "echo $((6 * 7))" })], [text("42")]]),
 *   plugins: [shell({ root: "." })],
 * });
 * const added = await agent.prompt("What is 6 * 7?");
 * const result = added[2];
 * equal(result.role === "toolResult" && result.content[0].type === "text" && result.content[0].text, "42\n");
 * ```
 *
 * @module
 */

import { definePlugin, type Plugin } from "../../sdk/define_plugin.ts";
import { pluginRoot } from "../../sdk/plugin_root.ts";
import { createBashTool, type ShellSettings } from "./bash_tool.ts";
import { DEFAULT_INHERITED_ENV, inheritedEnv } from "./inherited_env.ts";

export { type BashDetails, createBashTool, type ShellSettings } from "./bash_tool.ts";
export { type CommandOutcome, runCommand, type RunCommandOptions } from "./run_command.ts";
export { createOutputBuffer, type OutputBuffer } from "./output_buffer.ts";
export { DEFAULT_INHERITED_ENV, inheritedEnv } from "./inherited_env.ts";

/** Options of the `shell` plugin. */
export interface ShellOptions {
  /** The working directory of every command (default `"."`). */
  root?: string;
  /** Timeout when a call gives none, in seconds (default 120, or `maxTimeoutSeconds` if lower). */
  timeoutSeconds?: number;
  /** The longest `timeout` a call may ask for, in seconds (default 600). */
  maxTimeoutSeconds?: number;
  /** Characters of combined output kept, head and tail (default 30 000). */
  maxOutputChars?: number;
  /**
   * The host variables a command inherits (exact names, or prefixes ending in `*`).
   * Default {@linkcode DEFAULT_INHERITED_ENV}: `PATH`, `HOME`, `USER`, `LOGNAME`, `SHELL`,
   * `LANG`, `LANGUAGE`, `LC_*`, `TERM`, `COLORTERM`, `NO_COLOR`, `TMPDIR`, `TZ`. Nothing
   * else reaches the command: the host's API keys and tokens stay with the host.
   */
  inheritEnv?: readonly string[];
  /** Variables set for every command, on top of the inherited ones (e.g. `{ PAGER: "cat" }`). */
  env?: Record<string, string>;
  /** The shell binary (default `"bash"`); it is run as `shell -c command`. */
  shell?: string;
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !(value > 0) || !Number.isFinite(value)) {
    throw new TypeError(
      `Cannot create shell plugin: ${name} must be a positive number, got ${value}`,
    );
  }
  return value;
}

/**
 * Creates the `shell` plugin with its `bash` tool (effect `exec`, sequential). It
 * declares `run` permission (all programs: the group kill needs it, and bash can start
 * anything anyway) and `read` on the root. Commands run with an allowlisted environment
 * (`inheritEnv`, plus `env`), never the host's API keys. `dispose()` (called by `agent.dispose()`)
 * kills the commands still running and waits for them to end.
 *
 * @param options The root, timeouts, output cap, environment and shell.
 * @returns The plugin, named `"shell"`.
 * @throws {Error} When the root does not exist or is not a directory.
 * @throws {TypeError} When a limit is not a positive number, or the default timeout is
 * over the maximum.
 *
 * @example Tool and permissions
 * ```ts
 * import { shell } from "@tack/agent/plugins/shell";
 * import { deepEqual } from "node:assert/strict";
 *
 * const plugin = shell({ root: "." });
 * deepEqual(plugin.tools?.map((t) => [t.name, t.effects, t.executionMode]), [
 *   ["bash", ["exec"], "sequential"],
 * ]);
 * deepEqual(plugin.permissions, { run: true, read: [Deno.realPathSync(".")] });
 * ```
 */
export function shell(options: ShellOptions = {}): Plugin {
  // Without read access (a sandbox asking for the declared permissions, a host with
  // --allow-run alone) the path as given.
  const found = pluginRoot("shell", options.root ?? ".");
  const root = found.real ?? found.path;
  const maxTimeoutSeconds = positive("maxTimeoutSeconds", options.maxTimeoutSeconds, 600);
  const timeoutSeconds = positive(
    "timeoutSeconds",
    options.timeoutSeconds,
    Math.min(120, maxTimeoutSeconds),
  );
  if (timeoutSeconds > maxTimeoutSeconds) {
    throw new TypeError(
      `Cannot create shell plugin: timeoutSeconds (${timeoutSeconds}) is over maxTimeoutSeconds (${maxTimeoutSeconds})`,
    );
  }
  const maxOutputChars = positive("maxOutputChars", options.maxOutputChars, 30_000);
  const running: NonNullable<ShellSettings["running"]> = new Set();
  return definePlugin({
    name: "shell",
    description: `bash in ${root}`,
    tools: [createBashTool({
      root,
      shell: options.shell ?? "bash",
      env: { ...inheritedEnv(options.inheritEnv ?? DEFAULT_INHERITED_ENV), ...options.env },
      timeoutSeconds,
      maxTimeoutSeconds,
      maxOutputChars: Math.max(2, Math.floor(maxOutputChars)),
      running,
    })],
    permissions: { run: true, read: [root] },
    /** Kills the commands still running (their process groups) and waits for them. */
    async dispose(): Promise<void> {
      const entries = [...running];
      for (const entry of entries) entry.controller.abort();
      await Promise.all(entries.map((entry) => entry.done));
    },
  });
}

export default shell;
