/**
 * A sandbox child that is a `deno run` process (under bubblewrap or `unshare -n` where
 * available), speaking JSON lines over stdin and stdout. What it sends is bounded: a
 * message over the frame limit stops it, and its stderr goes through
 * {@linkcode sandboxStderr} (each line cut and stripped of control sequences, at most
 * `STDERR_LINES_PER_SECOND` a second) before it reaches a terminal or an error
 * text. What it is sent is bounded too: a child that leaves
 * {@linkcode STDIN_LIMIT_FRAMES} frames unread on its stdin is taken for stuck and stopped.
 *
 * @module
 */

import { drainWithin, killProcessGroup, spawnGroup } from "../process_group.ts";
import { jsonValuesOver, MAX_MESSAGE_VALUES } from "./json_values.ts";
import { childStdin, STDIN_LIMIT_FRAMES } from "./child_stdin.ts";
import { parseChildMessage } from "./protocol.ts";
import { readLines } from "./read_lines.ts";
import type { ChildHandlers, SandboxChild, SpawnChild } from "./sandbox_connection.ts";
import { sandboxStderr, STDERR_LINE_BYTES } from "./sandbox_stderr.ts";
import { stripControlSequences } from "./strip_control_sequences.ts";

/** How to start the process. */
export interface ProcessCommand {
  /** The program: `deno`, `bwrap`, `unshare` or `prlimit`. */
  command: string;
  args: readonly string[];
  /** The whole environment of the child (it starts from an empty one). */
  env: Record<string, string>;
  /** `"forward"` (default) copies the child's stderr to the host's, each line prefixed with `[label] ` (at most `STDERR_LINES_PER_SECOND` a second); `"capture"` only keeps its tail for error texts. */
  stderr?: "forward" | "capture";
  /** The prefix of forwarded stderr lines. */
  label: string;
  /** The largest message the child may send, in MB (default {@linkcode DEFAULT_FRAME_MB}); it may leave {@linkcode STDIN_LIMIT_FRAMES} times as much unread on its stdin. */
  frameMb?: number;
  /** The memory cap the command line applies, in MB, to name it when it is broken. */
  memoryMb?: number;
}

/** The largest message a sandbox may send by default, in MB. */
export const DEFAULT_FRAME_MB = 16;

/**
 * How long the pipes are read after the child exits: what it wrote last is in them, and
 * they end at once unless something it left running holds them (then they are let go).
 */
const DRAIN_MS = 1000;

/**
 * How a breached memory cap reads in error texts.
 *
 * @param memoryMb The cap, if there is one.
 * @returns The words after "the sandbox of plugin …".
 *
 * @example With and without a cap
 * ```ts
 * import { memoryLimitText } from "./sandbox_process.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(memoryLimitText(512), "exceeded its memory limit (512 MB)");
 * equal(memoryLimitText(undefined), "ran out of memory");
 * ```
 */
export function memoryLimitText(memoryMb: number | undefined): string {
  return memoryMb === undefined
    ? "ran out of memory"
    : `exceeded its memory limit (${memoryMb} MB)`;
}

/**
 * How a child that stopped reading its stdin reads in error texts.
 *
 * @param frameMb Its frame limit, in MB.
 * @returns The words after "the sandbox of plugin …".
 *
 * @example The default limit
 * ```ts
 * import { stdinLimitText } from "./sandbox_process.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(stdinLimitText(16), "left 64 MB unread on its stdin (its limit)");
 * ```
 */
export function stdinLimitText(frameMb: number): string {
  return `left ${STDIN_LIMIT_FRAMES * frameMb} MB unread on its stdin (its limit)`;
}

/**
 * A spawner of sandbox processes for a {@linkcode SandboxConnection}.
 *
 * @param command The program, arguments, environment and limits.
 * @returns A function that starts one child per call.
 *
 * @example A child that prints garbage
 * ```ts
 * import { spawnProcess } from "./sandbox_process.ts";
 * import { equal } from "node:assert/strict";
 *
 * let garbage = "";
 * const child = spawnProcess({
 *   command: Deno.execPath(), args: ["eval", "console.log('hello')"], env: {}, label: "demo",
 * })({ onMessage() {}, onGarbage: (line) => (garbage = line), onFault() {}, onExit() {} });
 * await child.closed;
 * equal(garbage, "hello");
 * ```
 */
export function spawnProcess(command: ProcessCommand): SpawnChild {
  const frameMb = command.frameMb ?? DEFAULT_FRAME_MB;
  return function spawn(handlers: ChildHandlers): SandboxChild {
    // Its own process group, killed whole: bubblewrap, the sandbox it forks (even before it
    // has tied that sandbox's life to its own) and what the plugin starts.
    const process = spawnGroup(command.command, {
      args: [...command.args],
      env: command.env,
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    });
    const stdin = childStdin(process.stdin, STDIN_LIMIT_FRAMES * frameMb * 1024 * 1024);
    const encoder = new TextEncoder();
    const decoder = new TextDecoder();
    let alive = true;
    let garbage = false;
    const kill = () => {
      if (!alive) return;
      alive = false;
      stdin.discard();
      killProcessGroup(process);
    };
    let stopReading!: () => void;
    const stop = new Promise<void>((resolve) => (stopReading = resolve));
    const fault = (why: string) => {
      handlers.onFault(why);
      kill();
    };
    const stdout = readLines(process.stdout, (bytes) => {
      if (garbage || bytes.length === 0) return;
      // Counted before it is parsed: what it would cost the host, not what it weighs.
      if (jsonValuesOver(bytes, MAX_MESSAGE_VALUES)) {
        return fault(`sent a message of more than ${MAX_MESSAGE_VALUES} JSON values (its limit)`);
      }
      const line = decoder.decode(bytes);
      const message = parseChildMessage(line);
      if (message === undefined) {
        garbage = true;
        handlers.onGarbage(stripControlSequences(line.slice(0, 200)));
      } else if (message.type === "out_of_memory") fault(memoryLimitText(command.memoryMb));
      else handlers.onMessage(message);
    }, {
      maxLineBytes: frameMb * 1024 * 1024,
      long: "stop",
      onTooLong: () => fault(`sent a message over its frame limit (${frameMb} MB)`),
      stop,
    });
    const lines = sandboxStderr({
      label: command.label,
      print: command.stderr === "capture" ? undefined : (line) => console.error(line),
    });
    const stderr = readLines(process.stderr, lines.line, {
      maxLineBytes: STDERR_LINE_BYTES,
      long: "cut",
      pause: lines.pause,
      stop,
    }).finally(lines.end);
    process.status.finally(lines.release);
    const closed = process.status.then(async (status) => {
      alive = false;
      // What is left of it was killed with its group (see spawnGroup), unless the group could
      // not be signalled: its stdin is closed, and its pipes read for DRAIN_MS at most.
      stdin.discard();
      await drainWithin(Promise.all([stdout, stderr]), DRAIN_MS, stopReading);
      if (lines.outOfMemory() && !status.success) {
        handlers.onFault(memoryLimitText(command.memoryMb));
      }
      const reason = status.signal !== null
        ? `killed by ${status.signal}`
        : `exit code ${status.code}`;
      handlers.onExit(reason);
    });
    return {
      send(message) {
        if (!alive) return;
        // Past the bound the child is taken for stuck: the work this message belongs to
        // ends with the rest of the child's, with an error naming the limit.
        if (!stdin.send(encoder.encode(JSON.stringify(message) + "\n"))) {
          fault(stdinLimitText(frameMb));
        }
      },
      kill,
      closed,
      stderrTail: lines.tail,
    };
  };
}
