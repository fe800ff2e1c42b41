/**
 * What the host does with a sandbox's stderr lines: each is cut at
 * {@linkcode STDERR_LINE_BYTES}, stripped of control sequences, prefixed with the plugin's
 * label and printed (or only kept for error texts), at most
 * {@linkcode STDERR_LINES_PER_SECOND} a second. The lines past that are counted and
 * dropped, unread (but for a look at their first byte, for an out-of-memory report); a note
 * says how many, and the last
 * {@linkcode STDERR_LAST_LINES} of a stream that ends mid-flood are shown after all (its
 * last words: a crash report, V8's out-of-memory message). Past
 * {@linkcode STDERR_LINES_READ_PER_SECOND} lines in a second, reading pauses until the
 * second is over.
 *
 * @module
 */

import { stripControlSequences } from "./strip_control_sequences.ts";

/** Each stderr line of a sandbox is cut after this many bytes. */
export const STDERR_LINE_BYTES = 4096;

/**
 * The most stderr lines of one sandbox process shown (or kept) in a second: more than a
 * person reads, and at the ~5.5 µs a forwarded line costs the host, ~1 ms of its time a
 * second.
 *
 * @example The bound
 * ```ts
 * import { STDERR_LINES_PER_SECOND } from "./sandbox_stderr.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(STDERR_LINES_PER_SECOND, 200);
 * ```
 */
export const STDERR_LINES_PER_SECOND = 200;

/**
 * The most stderr lines of one sandbox process the host reads in a second, shown or
 * dropped: past them (and the rest of the chunk they came in) it stops reading until the
 * second is over, so a plugin writing faster waits on its own writes rather than keep a
 * core of the host busy. At ~40–100 ns a dropped line, reading costs the host ~1% of a
 * core at most; a plugin logging fewer lines never waits.
 *
 * @example The bound
 * ```ts
 * import { STDERR_LINES_READ_PER_SECOND } from "./sandbox_stderr.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(STDERR_LINES_READ_PER_SECOND, 20_000);
 * ```
 */
export const STDERR_LINES_READ_PER_SECOND = 20_000;

/**
 * How many of the last dropped lines are shown after all when the stream ends before the
 * second is over: V8's out-of-memory report is ~14 lines.
 *
 * @example The count
 * ```ts
 * import { STDERR_LAST_LINES } from "./sandbox_stderr.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(STDERR_LAST_LINES, 16);
 * ```
 */
export const STDERR_LAST_LINES = 16;

const TAIL_CHARS = 2000;

// What Deno and V8 print when the heap limit or the OS limit is reached.
const OUT_OF_MEMORY =
  /Fatal (?:JavaScript|process) out of memory|memory allocation of \d+ bytes failed/;

/**
 * Whether a dropped line is an out-of-memory report, so one is noticed however many lines
 * follow it. Only lines that start as one may (`#` for V8's, `m` for Rust's `memory
 * allocation of …`) are decoded, and only their first 64 bytes, where the words are: a flood
 * of such lines costs the host little more than any other.
 */
function reportsOutOfMemory(bytes: Uint8Array, decoder: TextDecoder): boolean {
  if (bytes[0] !== 0x23 && bytes[0] !== 0x6d) return false;
  return OUT_OF_MEMORY.test(decoder.decode(bytes.subarray(0, 64)));
}

/** Where a sandbox's stderr goes. */
export interface SandboxStderrOptions {
  /** The prefix of printed lines (`[label] `). */
  label: string;
  /** Prints one line (already prefixed); left out, lines are only kept for error texts. */
  print?: (line: string) => void;
  /** The clock, in ms (default `performance.now`). */
  now?: () => number;
}

/** The stderr of one sandbox process, fed line by line. */
export interface SandboxStderr {
  /**
   * Takes one line, as `readLines` hands it over. The bytes of a dropped line
   * may be kept until the stream ends (`readLines` never reuses them).
   */
  line(bytes: Uint8Array, cutBytes: number): void;
  /**
   * Asked after each chunk: once the second's reading is spent, a promise to wait for
   * before reading on (until the second is over); else `undefined`.
   */
  pause(): Promise<void> | undefined;
  /** The writer is gone: no more pauses, what is left is read at once. */
  release(): void;
  /** The stream ended: says what was dropped, shows the last lines held back. */
  end(): void;
  /** The last ~2,000 characters of what was kept (notes included), for error texts. */
  tail(): string;
  /** Whether a line (kept or dropped) said the process ran out of memory. */
  outOfMemory(): boolean;
}

/**
 * Starts taking a sandbox's stderr lines.
 *
 * @param options The label, where lines go, and the clock.
 * @returns The line sink; call `end()` when the stream ends (it stops its timer).
 *
 * @example A flood: 200 lines shown, a note, and the last 16 lines
 * ```ts
 * import { sandboxStderr } from "./sandbox_stderr.ts";
 * import { equal } from "node:assert/strict";
 *
 * const printed: string[] = [];
 * const stderr = sandboxStderr({ label: "demo", print: (line) => printed.push(line), now: () => 0 });
 * const encoder = new TextEncoder();
 * for (let i = 0; i < 1000; i++) stderr.line(encoder.encode(`line ${i}`), 0);
 * stderr.end();
 * equal(printed.length, 200 + 1 + 16);
 * equal(printed[199], "[demo] line 199");
 * equal(printed[200], "[demo] … [784 lines dropped: more than 200 in a second; the last 16 follow]");
 * equal(printed[216], "[demo] line 999");
 * ```
 */
export function sandboxStderr(options: SandboxStderrOptions): SandboxStderr {
  const { label, print } = options;
  const now = options.now ?? (() => performance.now());
  const decoder = new TextDecoder();
  let tail = "";
  let outOfMemory = false;
  // The current window: when it began (at its first line), how many lines it kept, how
  // many it dropped (the last of them held back, by reference, in a ring).
  let start = -Infinity;
  let kept = 0;
  let dropped = 0;
  let held: Uint8Array[] = [];
  let heldCut: number[] = [];
  // Set while lines are dropped: ends the window at its second.
  let timer: ReturnType<typeof setTimeout> | undefined;
  // While reading waits for the window's end.
  let paused: Promise<void> | undefined;
  let resume = () => {};
  let released = false;

  const show = (text: string) => {
    tail = (tail + text + "\n").slice(-TAIL_CHARS);
    print?.(`[${label}] ${text}`);
  };
  const keep = (bytes: Uint8Array, cut: number) => {
    const text = stripControlSequences(decoder.decode(bytes));
    if (OUT_OF_MEMORY.test(text)) outOfMemory = true;
    show(cut > 0 ? `${text}… [${cut} more bytes cut]` : text);
  };
  const note = (count: number, follow: string) =>
    show(
      `… [${count} lines dropped: more than ${STDERR_LINES_PER_SECOND} in a second${follow}]`,
    );
  const wake = () => {
    paused = undefined;
    resume();
  };
  const closeWindow = () => {
    timer = undefined;
    note(dropped, "");
    start = -Infinity;
    dropped = 0;
    held = [];
    heldCut = [];
    wake();
  };

  return {
    line(bytes, cut) {
      // While lines are dropped the timer ends the window: no clock, no decoding.
      if (timer === undefined) {
        const at = now();
        if (at - start >= 1000) {
          start = at;
          kept = 0;
        }
        if (kept < STDERR_LINES_PER_SECOND) {
          kept++;
          return keep(bytes, cut);
        }
        timer = setTimeout(closeWindow, start + 1000 - at);
      }
      if (!outOfMemory) outOfMemory = reportsOutOfMemory(bytes, decoder);
      const slot = dropped++ % STDERR_LAST_LINES;
      held[slot] = bytes;
      heldCut[slot] = cut;
    },
    pause() {
      if (released || timer === undefined || kept + dropped < STDERR_LINES_READ_PER_SECOND) {
        return undefined;
      }
      return paused ??= new Promise((resolve) => (resume = resolve));
    },
    release() {
      released = true;
      wake();
    },
    end() {
      clearTimeout(timer);
      timer = undefined;
      wake();
      if (dropped === 0) return;
      const shown = Math.min(dropped, STDERR_LAST_LINES);
      if (dropped > shown) note(dropped - shown, `; the last ${shown} follow`);
      for (let i = dropped - shown; i < dropped; i++) {
        const slot = i % STDERR_LAST_LINES;
        keep(held[slot], heldCut[slot]);
      }
      dropped = 0;
      held = [];
      heldCut = [];
    },
    tail: () => tail,
    outOfMemory: () => outOfMemory,
  };
}
