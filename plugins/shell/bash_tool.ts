/**
 * The `bash` tool: a command in the workspace, with a timeout, capped output and its
 * exit code.
 *
 * @module
 */

import { DEFAULT_INHERITED_ENV, inheritedEnv } from "./inherited_env.ts";
import { Type } from "typebox";
import { type AgentTool, ToolError } from "../../core/tool.ts";
import { defineTool } from "../../sdk/define_tool.ts";
import { runCommand } from "./run_command.ts";
import { requireHostMay } from "../../sdk/sandbox/host_may.ts";

/** The resolved settings of one `shell` plugin. */
export interface ShellSettings {
  /** The real path of the working directory. */
  root: string;
  /** The shell binary. */
  shell: string;
  /**
   * The command's whole environment: nothing else is inherited (default: the host's
   * variables named in `DEFAULT_INHERITED_ENV`).
   */
  env?: Record<string, string>;
  /** Timeout when the call gives none, in seconds. */
  timeoutSeconds: number;
  /** The longest timeout a call may ask for, in seconds. */
  maxTimeoutSeconds: number;
  /** Characters of output kept (head and tail). */
  maxOutputChars: number;
  /** Commands running now, so `dispose` can stop them and wait (filled by the tool). */
  running?: Set<{ controller: AbortController; done: Promise<unknown> }>;
}

/** What `bash` puts in `details` (on success and on failure). */
export interface BashDetails {
  /** The exit code; `null` when a signal ended the command. */
  exitCode: number | null;
  /** The signal that ended it, if any. */
  signal?: string;
  /** Whether the timeout killed it. */
  timedOut?: boolean;
  /** Output characters the command wrote, and how many were elided from the middle. */
  outputChars: number;
  /** Characters elided from the middle of the output shown. */
  elidedChars: number;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/**
 * Creates the `bash` tool. The command runs as `bash -c command` in the root with stdin
 * closed; stdout and stderr come back combined, head and tail kept when over the cap; a
 * non-zero exit, a signal or the timeout make the result an error whose `details` carry
 * the exit code. Progress streams through `update`. The process group is killed on
 * timeout and abort. `executionMode` is `"sequential"`.
 *
 * @param settings The root, shell, timeouts and output cap.
 * @returns The tool (effect `exec`).
 *
 * @example Running a command
 * ```ts
 * import { createBashTool } from "@tack/agent/plugins/shell";
 * import { equal } from "node:assert/strict";
 *
 * const bash = createBashTool({
 *   root: Deno.cwd(), shell: "bash", timeoutSeconds: 10, maxTimeoutSeconds: 60,
 *   maxOutputChars: 1000,
 * });
 * const result = await bash.execute({ command: "echo hello" }, {
 *   toolCallId: "1", signal: new AbortController().signal,
 * });
 * equal(result.content[0].type === "text" && result.content[0].text, "hello\n");
 * ```
 */
export function createBashTool(settings: ShellSettings): AgentTool {
  return defineTool({
    name: "bash",
    label: "Run command",
    description: `Run a bash command in the workspace root (${settings.root}). stdout and ` +
      `stderr are combined; output over ${settings.maxOutputChars} characters keeps its ` +
      `start and end. Times out after ${settings.timeoutSeconds} s unless \`timeout\` ` +
      `(seconds, at most ${settings.maxTimeoutSeconds}) says otherwise. stdin is closed: ` +
      "use non-interactive flags. A non-zero exit code is reported as an error.",
    parameters: Type.Object({
      command: Type.String({ minLength: 1, description: "The bash command to run" }),
      timeout: Type.Optional(Type.Number({
        exclusiveMinimum: 0,
        maximum: settings.maxTimeoutSeconds,
        description: `Timeout in seconds (default ${settings.timeoutSeconds})`,
      })),
    }),
    effects: ["exec"],
    executionMode: "sequential",
    // The tool enforces its own timeout; the loop's is a backstop a little later.
    timeoutMs: (settings.maxTimeoutSeconds + 10) * 1000,
    async execute({ command, timeout }, { signal, update }) {
      // Asked first: a host that may not run the shell gets Deno's denial, not a prompt.
      requireHostMay({ name: "run", command: settings.shell });
      const seconds = timeout ?? settings.timeoutSeconds;
      const controller = new AbortController();
      const forward = () => controller.abort(signal.reason);
      signal.addEventListener("abort", forward, { once: true });
      if (signal.aborted) forward();
      let outcome;
      const entry = { controller, done: Promise.resolve() as Promise<unknown> };
      try {
        const running = runCommand({
          shell: settings.shell,
          command,
          cwd: settings.root,
          env: settings.env ?? inheritedEnv(DEFAULT_INHERITED_ENV),
          clearEnv: true,
          timeoutMs: seconds * 1000,
          maxOutputChars: settings.maxOutputChars,
          signal: controller.signal,
          onProgress: update &&
            ((output) => update({ content: [{ type: "text", text: output }] })),
        });
        entry.done = running.catch(() => {});
        settings.running?.add(entry);
        outcome = await running;
      } catch (error) {
        if (error instanceof Deno.errors.NotFound) {
          throw new Error(`Cannot run ${settings.shell}: it is not installed or not on PATH`);
        }
        throw error;
      } finally {
        settings.running?.delete(entry);
        signal.removeEventListener("abort", forward);
      }
      const details: BashDetails = {
        exitCode: outcome.exitCode,
        outputChars: outcome.totalChars,
        elidedChars: outcome.elidedChars,
      };
      if (outcome.signal) details.signal = outcome.signal;
      const output = outcome.output === "" ? "(no output)" : outcome.output;
      const before = output.endsWith("\n") ? output.slice(0, -1) : output;
      if (outcome.timedOut) {
        details.timedOut = true;
        throw new ToolError(
          `${before}\n\nCommand timed out after ${plural(seconds, "second")} and was killed`,
          { details },
        );
      }
      if (outcome.aborted) throw new ToolError(`${before}\n\nCommand aborted`, { details });
      if (outcome.signal) {
        throw new ToolError(`${before}\n\nCommand was killed by ${outcome.signal}`, { details });
      }
      if (outcome.exitCode !== 0) {
        throw new ToolError(`${before}\n\nCommand exited with code ${outcome.exitCode}`, {
          details,
        });
      }
      return { content: [{ type: "text", text: output }], details };
    },
  }) as AgentTool;
}
