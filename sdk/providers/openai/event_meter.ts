/**
 * Measures what the `openai` client holds of an event stream: every line since the last
 * event it handed on.
 *
 * @module
 */

const NEWLINE = 10;
const RETURN = 13;
const COLON = 58;
const SPACE = 32;
const DATA = [100, 97, 116, 97]; // "data"
const EVENT = [101, 118, 101, 110, 116]; // "event"

/**
 * Counts the bytes the client holds until it hands an event on. Its decoder keeps every
 * line (comments, `id:`, `retry:` too) until a blank line ends an event that has a `data`
 * line or a non-empty `event` line; a blank line after anything else ends nothing. So
 * `: ping` comments without end count as one event that never ends, as they grow the
 * client's buffer. Lines end at `\n`, `\r` or `\r\n`, wherever chunks are cut.
 *
 * @example Comments pile up until an event with data ends
 * ```ts
 * import { EventMeter } from "./event_meter.ts";
 * import { equal } from "node:assert/strict";
 *
 * const meter = new EventMeter();
 * const bytes = (text: string) => new TextEncoder().encode(text);
 * equal(meter.measure(bytes(": ping\n\n: ping\n\n")), 16);
 * equal(meter.measure(bytes("data: x\n\n")), 25); // all of it, held until the data's blank line
 * equal(meter.measure(bytes("data: y\n\n")), 9);
 * ```
 */
export class EventMeter {
  /** Bytes since the last event handed on. */
  #open = 0;
  /** The first bytes of the line not yet ended (enough to name its field). */
  #head: number[] = [];
  /** Its length so far. */
  #lineLength = 0;
  /** The last line ended with `\r`: a `\n` right after it ends nothing. */
  #afterReturn = false;
  /** The open event has a `data` line. */
  #data = false;
  /** The open event has a non-empty `event` line (the last one wins). */
  #event = false;

  /**
   * Reads the next chunk.
   *
   * @param chunk The bytes that arrived.
   * @returns The size of the largest event the chunk ends, or of the one still open.
   */
  measure(chunk: Uint8Array): number {
    let longest = 0;
    let segment = 0; // where the open event starts in this chunk
    let start = 0; // where the current line starts in this chunk
    // Lines end at `\n` mostly: searched natively unless the chunk holds a `\r`.
    const returns = chunk.indexOf(RETURN) !== -1;
    let i = returns ? lineEnd(chunk, 0) : chunk.indexOf(NEWLINE);
    while (i !== -1) {
      const length = this.#lineLength + i - start;
      const lfOfCrLf = this.#afterReturn && chunk[i] === NEWLINE && length === 0;
      this.#afterReturn = chunk[i] === RETURN;
      if (lfOfCrLf) {
        // The `\n` of a `\r\n`: the line ended at the `\r`.
      } else if (length === 0) {
        if (this.#data || this.#event) {
          longest = Math.max(longest, this.#open + i + 1 - segment);
          this.#open = 0;
          segment = i + 1;
          this.#data = this.#event = false;
        }
      } else if (this.#lineLength === 0) this.#readField(chunk, start, length);
      else {
        // A line begun in an earlier chunk (rare): its first bytes were kept.
        const head = Uint8Array.from([...this.#head, ...chunk.subarray(start, start + 8)]);
        this.#readField(head, 0, length);
      }
      this.#head.length = 0;
      this.#lineLength = 0;
      start = i + 1;
      i = returns ? lineEnd(chunk, start) : chunk.indexOf(NEWLINE, start);
    }
    if (start < chunk.length) {
      this.#afterReturn = false;
      const room = 8 - this.#head.length;
      for (let k = start; k < chunk.length && k < start + room; k++) this.#head.push(chunk[k]);
      this.#lineLength += chunk.length - start;
    }
    this.#open += chunk.length - segment;
    return Math.max(longest, this.#open);
  }

  /** Notes a `data` or `event` line (its bytes from `at`), as the client's decoder reads its field. */
  #readField(bytes: Uint8Array, at: number, length: number): void {
    if (isField(bytes, at, length, DATA)) this.#data = true;
    else if (isField(bytes, at, length, EVENT)) {
      // `event:` then one optional space, then the name: empty names no event.
      this.#event = length > (bytes[at + 6] === SPACE ? 7 : 6);
    }
  }
}

/** Where the next line ends (`\n` or `\r`) from `from`, or -1. */
function lineEnd(chunk: Uint8Array, from: number): number {
  for (let i = from; i < chunk.length; i++) {
    if (chunk[i] === NEWLINE || chunk[i] === RETURN) return i;
  }
  return -1;
}

/** Whether the line of `length` bytes at `at` is the field `name` (`name` alone or `name:…`). */
function isField(bytes: Uint8Array, at: number, length: number, name: readonly number[]): boolean {
  if (length < name.length) return false;
  for (let k = 0; k < name.length; k++) if (bytes[at + k] !== name[k]) return false;
  return length === name.length || bytes[at + name.length] === COLON;
}
