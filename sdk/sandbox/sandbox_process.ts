/**
 * A sandbox child that is a `deno run` process (under bubblewrap or `unshare -n` where
 * available), speaking JSON lines over stdin and stdout.
 *
 * @module
 */

import { parseChildMessage } from "./protocol.ts";
import type { ChildHandlers, SandboxChild, SpawnChild } from "./sandbox_connection.ts";

/** How to start the process. */
export interface ProcessCommand {
  /** The program: `deno`, `bwrap` or `unshare`. */
  command: string;
  args: readonly string[];
  /** The whole environment of the child (it starts from an empty one). */
  env: Record<string, string>;
  /** `"forward"` (default) copies the child's stderr to the host's, each line prefixed with `[label] `; `"capture"` only keeps its tail for error texts. */
  stderr?: "forward" | "capture";
  /** The prefix of forwarded stderr lines. */
  label: string;
}

const TAIL_CHARS = 2000;

async function readLines(
  stream: ReadableStream<Uint8Array>,
  onLine: (line: string) => void,
): Promise<void> {
  let buffer = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    buffer += chunk;
    let newline = buffer.indexOf("\n");
    while (newline >= 0) {
      onLine(buffer.slice(0, newline));
      buffer = buffer.slice(newline + 1);
      newline = buffer.indexOf("\n");
    }
  }
  if (buffer !== "") onLine(buffer);
}

/**
 * A spawner of sandbox processes for a {@linkcode SandboxConnection}.
 *
 * @param command The program, arguments and environment.
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
 * })({ onMessage() {}, onGarbage: (line) => (garbage = line), onExit() {} });
 * await child.closed;
 * equal(garbage, "hello");
 * ```
 */
export function spawnProcess(command: ProcessCommand): SpawnChild {
  return function spawn(handlers: ChildHandlers): SandboxChild {
    const process = new Deno.Command(command.command, {
      args: [...command.args],
      env: command.env,
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const writer = process.stdin.getWriter();
    const encoder = new TextEncoder();
    let tail = "";
    let alive = true;
    let garbage = false;
    const kill = () => {
      if (!alive) return;
      alive = false;
      try {
        process.kill("SIGKILL");
      } catch {
        // Already gone.
      }
    };
    const stdout = readLines(process.stdout, (line) => {
      if (garbage || line === "") return;
      const message = parseChildMessage(line);
      if (message === undefined) {
        garbage = true;
        handlers.onGarbage(line);
      } else handlers.onMessage(message);
    });
    const stderr = readLines(process.stderr, (line) => {
      tail = (tail + line + "\n").slice(-TAIL_CHARS);
      if (command.stderr !== "capture") console.error(`[${command.label}] ${line}`);
    });
    const closed = Promise.all([process.status, stdout, stderr]).then(async ([status]) => {
      alive = false;
      try {
        await writer.close();
      } catch {
        // The pipe is already broken.
      }
      const reason = status.signal !== null
        ? `killed by ${status.signal}`
        : `exit code ${status.code}`;
      handlers.onExit(reason);
    });
    return {
      send(message) {
        if (!alive) return;
        writer.write(encoder.encode(JSON.stringify(message) + "\n")).catch(() => {});
      },
      kill,
      closed,
      stderrTail: () => tail,
    };
  };
}
