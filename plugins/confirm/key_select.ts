/**
 * A choice on the terminal that never drops a key: keys come from node:readline's
 * keypress parser, one event per key even when several arrive in one read (two arrow
 * presses move twice), and each choice has a letter (`y`, `n`, `a`).
 *
 * @module
 */

import process from "node:process";
import readline from "node:readline";

/** One key, as node:readline's keypress events give it. */
export interface Key {
  /** `up`, `down`, `return`, `c` (with `ctrl`), `y`, … */
  name?: string;
  /** The characters typed. */
  sequence?: string;
  /** Whether Ctrl was held. */
  ctrl?: boolean;
}

/** A choice and its letter. */
export interface Choice {
  /** What it says. */
  label: string;
  /** The letter that picks it at once. */
  key: string;
}

/** What a key does to the selection. */
export type KeyOutcome =
  | { kind: "move"; index: number }
  | { kind: "pick"; index: number }
  | { kind: "cancel" }
  | { kind: "other"; name: string };

/**
 * What a key does: arrows (and `k`/`j`, Tab) move, Enter picks the highlighted choice, a
 * choice's letter picks it, Ctrl-C cancels, Escape and Ctrl-D pick `no` (when there is one).
 *
 * @param key The key.
 * @param index The highlighted choice.
 * @param choices The choices.
 * @returns The outcome.
 *
 * @example Two presses of Down, then Enter
 * ```ts
 * import { applyKey } from "./key_select.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * const choices = [{ label: "Yes", key: "y" }, { label: "No", key: "n" }, { label: "Always", key: "a" }];
 * let index = 0;
 * for (const name of ["down", "down"]) {
 *   const outcome = applyKey({ name }, index, choices);
 *   if (outcome.kind === "move") index = outcome.index;
 * }
 * deepEqual(applyKey({ name: "return" }, index, choices), { kind: "pick", index: 2 });
 * deepEqual(applyKey({ name: "n", sequence: "n" }, 0, choices), { kind: "pick", index: 1 });
 * ```
 */
export function applyKey(key: Key, index: number, choices: readonly Choice[]): KeyOutcome {
  const name = key.name ?? key.sequence ?? "";
  if (key.ctrl && name === "c") return { kind: "cancel" };
  const no = choices.findIndex((choice) => choice.key === "n");
  if ((key.ctrl && name === "d") || name === "escape") {
    return no >= 0 ? { kind: "pick", index: no } : { kind: "cancel" };
  }
  if (name === "up" || name === "k" && !choices.some((c) => c.key === "k")) {
    return { kind: "move", index: (index + choices.length - 1) % choices.length };
  }
  if (name === "down" || name === "tab" || name === "j" && !choices.some((c) => c.key === "j")) {
    return { kind: "move", index: (index + 1) % choices.length };
  }
  if (name === "return" || name === "enter") return { kind: "pick", index };
  const letter = (key.sequence ?? name).toLowerCase();
  const picked = choices.findIndex((choice) => choice.key === letter);
  if (picked >= 0 && !key.ctrl) return { kind: "pick", index: picked };
  return { kind: "other", name: letter };
}

/** The terminal's keys: an async iterator that can also drop what it holds. */
export interface TerminalKeys extends AsyncIterableIterator<Key> {
  /** Drops the keys received and not yet taken. */
  discard(): void;
  /** Stops reading and restores the terminal (again is harmless). */
  return(): Promise<IteratorResult<Key>>;
}

/**
 * The keys typed on stdin (raw mode while iterating), one at a time.
 *
 * @returns An async iterator of keys; `return()` restores the terminal.
 *
 * @example Only on a terminal
 * ```ts
 * import { terminalKeys } from "./key_select.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(typeof terminalKeys, "function");
 * ```
 */
export function terminalKeys(): TerminalKeys {
  const queue: Key[] = [];
  let wake: (() => void) | undefined;
  const onKey = (_: string, key: Key | undefined) => {
    queue.push(key ?? { sequence: _ });
    wake?.();
  };
  readline.emitKeypressEvents(process.stdin);
  const wasRaw = process.stdin.isRaw;
  process.stdin.setRawMode(true);
  process.stdin.on("keypress", onKey);
  process.stdin.resume();
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    process.stdin.off("keypress", onKey);
    process.stdin.setRawMode(wasRaw);
    process.stdin.pause();
  };
  const iterator: TerminalKeys = {
    async next() {
      while (queue.length === 0) await new Promise<void>((resolve) => wake = resolve);
      return { value: queue.shift()!, done: false };
    },
    return() {
      stop();
      return Promise.resolve({ value: undefined, done: true });
    },
    discard() {
      queue.length = 0;
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}

/**
 * How long {@linkcode freshTerminalKeys} waits for keys typed ahead. They are already in the
 * terminal's buffer, so they arrive in the first milliseconds of raw mode; a person answers a
 * question they have not seen yet far later than this.
 */
const TYPE_AHEAD_MS = 100;

/**
 * The terminal's keys from now on: call it before drawing a question. Keys typed while a run
 * streamed (the terminal holds them until something reads) arrive the moment raw mode starts
 * and would answer the question before it was on screen: a `y` or an `a` typed for the next
 * prompt would run a command, or allow it for the session. They are read for
 * {@linkcode TYPE_AHEAD_MS} and dropped; only keys pressed after that count.
 *
 * @param settleMs How long to wait for keys typed ahead.
 * @returns The terminal's keys, with nothing typed before the call in them.
 *
 * @example Only on a terminal
 * ```ts
 * import { freshTerminalKeys } from "./key_select.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(typeof freshTerminalKeys, "function");
 * ```
 */
export async function freshTerminalKeys(settleMs = TYPE_AHEAD_MS): Promise<TerminalKeys> {
  const keys = terminalKeys();
  await new Promise((resolve) => setTimeout(resolve, settleMs));
  keys.discard();
  return keys;
}

/** What {@linkcode keySelect} needs. */
export interface KeySelectOptions {
  /** The choices, in order. */
  choices: readonly Choice[];
  /** The choice highlighted first. */
  initial?: number;
  /** Where the menu is drawn (stderr). */
  write(text: string): void;
  /** The keys (default: the terminal's). */
  keys?: AsyncIterator<Key>;
  /** Whether to use ANSI colours. */
  color?: boolean;
  /** Other keys the caller handles (`v` to view a saved file); the menu is redrawn after. */
  onOther?: (name: string) => Promise<void> | void;
  /** The terminal's width, read at each redraw (default: the console's, if it has one). */
  columns?: () => number;
}

function consoleColumns(): number {
  try {
    return Deno.consoleSize().columns;
  } catch {
    return Infinity;
  }
}

/** The rows `text` takes on a terminal `columns` wide (its lines wrap; colours take none). */
function rowsOf(text: string, columns: number): number {
  let rows = 0;
  for (const line of text.split("\n").slice(0, -1)) {
    // deno-lint-ignore no-control-regex
    const visible = [...line.replace(/\x1b\[[0-9;]*m/g, "")].length;
    rows += Math.max(1, Math.ceil(visible / Math.max(1, columns)));
  }
  return rows;
}

function menu(choices: readonly Choice[], index: number, color: boolean): string {
  return choices.map((choice, i) => {
    const line = `${i === index ? "›" : " "} ${choice.label} (${choice.key})`;
    return i === index && color ? `\x1b[1;36m${line}\x1b[0m` : line;
  }).join("\n") + "\n";
}

/**
 * Shows the choices and waits for one.
 *
 * @param options The choices, where to draw, and the keys.
 * @returns The chosen index, or `undefined` for Ctrl-C.
 *
 * @example Scripted keys: Down, Down (one read), Enter
 * ```ts
 * import { keySelect } from "./key_select.ts";
 * import { equal } from "node:assert/strict";
 *
 * const keys = [{ name: "down" }, { name: "down" }, { name: "return" }][Symbol.iterator]();
 * const index = await keySelect({
 *   choices: [{ label: "Yes", key: "y" }, { label: "No", key: "n" }, { label: "Always", key: "a" }],
 *   write: () => {},
 *   keys: { next: () => Promise.resolve(keys.next()) },
 * });
 * equal(index, 2);
 * ```
 */
export async function keySelect(options: KeySelectOptions): Promise<number | undefined> {
  const { choices, write } = options;
  const color = options.color ?? false;
  let index = options.initial ?? 0;
  const keys = options.keys ?? terminalKeys();
  const columns = options.columns ?? consoleColumns;
  let shown = menu(choices, index, color);
  write(shown);
  // Back up over the rows the menu took (a label wider than the terminal takes more than one).
  const redraw = () => {
    const up = rowsOf(shown, columns());
    shown = menu(choices, index, color);
    write(`\x1b[${up}A\r\x1b[J${shown}`);
  };
  try {
    while (true) {
      const next = await keys.next();
      if (next.done) return undefined;
      const outcome = applyKey(next.value, index, choices);
      if (outcome.kind === "cancel") return undefined;
      if (outcome.kind === "pick") {
        index = outcome.index;
        redraw();
        return index;
      }
      if (outcome.kind === "move") {
        index = outcome.index;
        redraw();
      } else if (options.onOther) {
        await options.onOther(outcome.name);
      }
    }
  } finally {
    await keys.return?.();
  }
}
