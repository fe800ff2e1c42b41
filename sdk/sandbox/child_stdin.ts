/**
 * The host's end of a sandbox process's stdin. The messages sent in one tick leave in one
 * write, and the bytes the child has not taken yet are counted: a child that stops
 * reading (stuck in a loop, or on purpose) would otherwise make the host hold every
 * message sent to it, without bound, until the calls they belong to time out.
 *
 * @module
 */

import { joinBytes } from "../join_bytes.ts";

/**
 * How many of its frames (`frameMb`) a sandbox process may leave unread on its stdin
 * before it is taken for stuck. The host's messages carry what plugins sent (their results,
 * in the transcript its hooks see), so they are measured in frames: four leave room for a
 * batch's calls and hooks while the child is busy in a tool, and hold a stuck child's cost
 * to 64 MB by default.
 *
 * @example The default bound
 * ```ts
 * import { STDIN_LIMIT_FRAMES } from "./child_stdin.ts";
 * import { DEFAULT_FRAME_MB } from "./sandbox_process.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(STDIN_LIMIT_FRAMES * DEFAULT_FRAME_MB, 64);
 * ```
 */
export const STDIN_LIMIT_FRAMES = 4;

/** What the host writes to a child. */
export interface ChildStdin {
  /**
   * Queues one encoded line, written at the end of the tick with the others of that tick.
   * After `discard`, lines are dropped (not refused).
   *
   * @returns `false`, queuing nothing, when the bytes written in earlier ticks that the
   * child has not taken yet reach the bound (so the host holds at most the bound plus
   * what one tick sends: a batch's calls and hooks always leave together).
   */
  send(line: Uint8Array): boolean;
  /** Bytes handed to the pipe in earlier ticks that the child has not taken yet. */
  waiting(): number;
  /**
   * Drops what is queued and closes the pipe at once, without waiting for the child to take
   * what was written (the child is gone or going).
   */
  discard(): void;
}

/**
 * Wraps a child's stdin.
 *
 * @param stdin The child's stdin (`Deno.ChildProcess.stdin`).
 * @param maxWaitingBytes The bound on unwritten bytes.
 * @returns The writer.
 *
 * @example A child that takes nothing: a line of the next tick is refused
 * ```ts
 * import { childStdin } from "./child_stdin.ts";
 * import { equal } from "node:assert/strict";
 *
 * const stuck = new WritableStream<Uint8Array>({ write: () => new Promise(() => {}) });
 * const stdin = childStdin(stuck, 8);
 * const line = new TextEncoder().encode("abcd\n");
 * equal(stdin.send(line), true);
 * equal(stdin.send(line), true); // the same tick: both leave in one write
 * await Promise.resolve();
 * equal(stdin.waiting(), 10);
 * equal(stdin.send(line), false);
 * stdin.discard();
 * ```
 */
export function childStdin(
  stdin: WritableStream<Uint8Array>,
  maxWaitingBytes: number,
): ChildStdin {
  const writer = stdin.getWriter();
  let queue: Uint8Array[] = [];
  let queued = 0;
  let writing = 0;
  let open = true;
  const flush = () => {
    if (!open || queue.length === 0) return;
    const bytes = joinBytes(queue, queued);
    queue = [];
    queued = 0;
    writing += bytes.length;
    const taken = () => void (writing -= bytes.length);
    writer.write(bytes).then(taken, taken);
  };
  return {
    send(line) {
      if (!open) return true;
      if (writing >= maxWaitingBytes) return false;
      if (queue.length === 0) queueMicrotask(flush);
      queue.push(line);
      queued += line.length;
      return true;
    },
    waiting: () => writing,
    discard() {
      open = false;
      queue = [];
      queued = 0;
      // Closes the pipe now, dropping what the child has not taken: whatever of it still
      // reads the pipe (where its process group could not be killed whole) reads its end.
      writer.abort().catch(() => {});
    },
  };
}
