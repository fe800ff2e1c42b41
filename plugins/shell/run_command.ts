/**
 * Runs one shell command in its own process group: output merged and capped, a timeout,
 * and the whole group killed on timeout, abort, or when the command ends.
 *
 * @module
 */

import { createOutputBuffer } from "./output_buffer.ts";
import { paceProgress } from "../../sdk/pace_progress.ts";
import { drainWithin, killProcessGroup, spawnGroup } from "../../sdk/process_group.ts";

/** What {@linkcode runCommand} takes. */
export interface RunCommandOptions {
  /** The shell binary (`bash`). */
  shell: string;
  /** The command, passed as `shell -c command`. */
  command: string;
  /** Working directory. */
  cwd: string;
  /** The command's environment; with `clearEnv`, nothing else is inherited. */
  env?: Record<string, string>;
  /** Start from an empty environment instead of the host's (default `false`). */
  clearEnv?: boolean;
  /** Kill the command after this many ms. */
  timeoutMs: number;
  /** Characters of output to keep (head and tail). */
  maxOutputChars: number;
  /** Kills the command when aborted. */
  signal: AbortSignal;
  /**
   * Receives the output so far: at once, then at most every `progressIntervalMs`, always the
   * latest, and the last before the command's outcome.
   */
  onProgress?: (output: string) => void;
  /** Default 100 ms. */
  progressIntervalMs?: number;
}

/** How a command ended. */
export interface CommandOutcome {
  /** The combined stdout and stderr, capped. */
  output: string;
  /** The exit code, or `null` when a signal ended it. */
  exitCode: number | null;
  /** The signal that ended it, if any. */
  signal: string | null;
  /** Whether the timeout killed it. */
  timedOut: boolean;
  /** Whether the signal killed it. */
  aborted: boolean;
  /** Output characters the command wrote. */
  totalChars: number;
  /** Characters left out of `output`. */
  elidedChars: number;
}

/** How long the pipes may stay open after the command exits (held by escaped processes). */
const DRAIN_MS = 250;

async function pump(
  stream: ReadableStream<Uint8Array>,
  onText: (text: string) => void,
  stop: Promise<void>,
): Promise<void> {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let stopped = false;
  stop.then(() => {
    stopped = true;
    reader.cancel().catch(() => {});
  });
  try {
    while (!stopped) {
      const { value, done } = await reader.read();
      if (done) break;
      onText(value);
    }
  } catch {
    /* cancelled */
  } finally {
    reader.releaseLock();
  }
}

/**
 * Runs `shell -c command` with stdin closed, stdout and stderr merged in arrival order,
 * in a new process group. The group is killed with SIGKILL on timeout or abort, and
 * after the command exits (so background jobs it left do not linger or hold the pipes).
 *
 * @param options The command, its directory, limits and signal.
 * @returns How it ended; never rejects for a failing command.
 * @throws {Deno.errors.NotFound} When the shell is not installed.
 *
 * @example Running a command
 * ```ts
 * import { runCommand } from "@tack/agent/plugins/shell";
 * import { equal } from "node:assert/strict";
 *
 * const outcome = await runCommand({
 *   shell: "bash", command: "echo hi; exit 3", cwd: ".", timeoutMs: 5000,
 *   maxOutputChars: 1000, signal: new AbortController().signal,
 * });
 * equal(outcome.output, "hi\n");
 * equal(outcome.exitCode, 3);
 * ```
 */
export async function runCommand(options: RunCommandOptions): Promise<CommandOutcome> {
  const buffer = createOutputBuffer(options.maxOutputChars);
  const child = spawnGroup(options.shell, {
    args: ["-c", options.command, options.shell.slice(options.shell.lastIndexOf("/") + 1)],
    cwd: options.cwd,
    env: options.env,
    clearEnv: options.clearEnv ?? false,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  });
  let timedOut = false;
  let aborted = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killProcessGroup(child);
  }, options.timeoutMs);
  const onAbort = () => {
    aborted = true;
    killProcessGroup(child);
  };
  options.signal.addEventListener("abort", onAbort, { once: true });
  if (options.signal.aborted) onAbort();

  // The output so far is built only when a progress is delivered.
  const { onProgress } = options;
  const progress = onProgress &&
    paceProgress<void>(() => onProgress(buffer.text()), options.progressIntervalMs);
  const onText = (text: string) => {
    buffer.append(text);
    progress?.push();
  };
  let stopReading!: () => void;
  const stop = new Promise<void>((resolve) => (stopReading = resolve));
  const reading = Promise.all([
    pump(child.stdout, onText, stop),
    pump(child.stderr, onText, stop),
  ]);
  try {
    // What the command left in its group is killed as it exits (see spawnGroup).
    const status = await child.status;
    await drainWithin(reading, DRAIN_MS, stopReading);
    progress?.flush();
    return {
      output: buffer.text(),
      exitCode: status.signal ? null : status.code,
      signal: status.signal,
      timedOut,
      aborted,
      totalChars: buffer.totalChars,
      elidedChars: buffer.elidedChars,
    };
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener("abort", onAbort);
    stopReading();
  }
}
