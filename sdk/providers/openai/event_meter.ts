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
    const returns = chunk.indexOf(RETURN) !== -1;
    const next = (from: number) => {
      if (!returns) return chunk.indexOf(NEWLINE, from);
      for (let i = from; i < chunk.length; i++) {
        if (chunk[i] === NEWLINE || chunk[i] === RETURN) return i;
      }
      return -1;
    };
    for (let i = next(0); i !== -1; i = next(i + 1)) {
      const length = this.#lineLength + i - start;
      const lfOfCrLf = this.#afterReturn && chunk[i] === NEWLINE && length === 0;
      this.#afterReturn = chunk[i] === RETURN;
      if (!lfOfCrLf) {
        const head = [...this.#head, ...chunk.subarray(start, Math.min(i, start + 8))];
        if (length === 0 && (this.#data || this.#event)) {
          longest = Math.max(longest, this.#open + i + 1 - segment);
          this.#open = 0;
          segment = i + 1;
          this.#data = this.#event = false;
        } else this.#readField(head, length);
      }
      this.#head = [];
      this.#lineLength = 0;
      start = i + 1;
    }
    if (start < chunk.length) {
      this.#afterReturn = false;
      const room = 8 - this.#head.length;
      if (room > 0) this.#head.push(...chunk.subarray(start, start + room));
      this.#lineLength += chunk.length - start;
    }
    this.#open += chunk.length - segment;
    return Math.max(longest, this.#open);
  }

  /** Notes a `data` or `event` line, as the client's decoder reads its field. */
  #readField(head: number[], length: number): void {
    const named = (name: number[]) =>
      name.every((byte, k) => head[k] === byte) &&
      (length === name.length || head[name.length] === COLON);
    if (named(DATA)) this.#data = true;
    else if (named(EVENT)) {
      // `event:` then one optional space, then the name: empty names no event.
      this.#event = length > (head[6] === SPACE ? 7 : 6);
    }
  }
}
