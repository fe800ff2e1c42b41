/**
 * What a sandbox has seen of the transcript, so a hook call sends only what changed:
 * usually the messages appended since the last call. One cursor per running child; a
 * restarted child starts from nothing.
 *
 * @module
 */

/** The part of a transcript a child lacks: drop its messages from `from` on, append `append`. */
export interface TranscriptDelta {
  from: number;
  append: unknown[];
}

/**
 * The host's record of the transcript a child holds. Messages are compared by identity
 * (the host never edits a message once it is in the transcript, it replaces it): a
 * replaced or removed message resends from its position on.
 */
export class TranscriptCursor {
  #seen: unknown[] = [];

  /**
   * The delta that brings the child to `messages`, recorded as sent.
   *
   * @param messages The transcript now.
   * @returns What to send.
   *
   * @example Only what was appended
   * ```ts
   * import { TranscriptCursor } from "./transcript_cursor.ts";
   * import { deepEqual } from "node:assert/strict";
   *
   * const cursor = new TranscriptCursor();
   * const a = { role: "user" }, b = { role: "assistant" };
   * deepEqual(cursor.delta([a]), { from: 0, append: [a] });
   * deepEqual(cursor.delta([a, b]), { from: 1, append: [b] });
   * deepEqual(cursor.delta([b]), { from: 0, append: [b] });
   * ```
   */
  delta(messages: readonly unknown[]): TranscriptDelta {
    const seen = this.#seen;
    const common = Math.min(seen.length, messages.length);
    let from = 0;
    while (from < common && seen[from] === messages[from]) from++;
    // Overwrite in place: shrinking `length` and pushing again would make V8 copy the
    // whole backing store on every call.
    for (let i = from; i < messages.length; i++) seen[i] = messages[i];
    if (seen.length > messages.length) seen.length = messages.length;
    return { from, append: messages.slice(from) };
  }
}

function deepFreeze(value: unknown): void {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
}

/**
 * The child's copy of the transcript, brought up to date by each delta. Its messages are
 * frozen: a hook that edits one would otherwise make every later hook see a transcript
 * the host never had.
 */
export class TranscriptMirror {
  #messages: unknown[] = [];

  /**
   * Applies a delta.
   *
   * @param delta What the host sent.
   * @returns The transcript now (a fresh, frozen array the hook may keep).
   *
   * @example Two deltas
   * ```ts
   * import { TranscriptMirror } from "./transcript_cursor.ts";
   * import { deepEqual } from "node:assert/strict";
   *
   * const mirror = new TranscriptMirror();
   * mirror.apply({ from: 0, append: [1, 2] });
   * deepEqual(mirror.apply({ from: 1, append: [3] }), [1, 3]);
   * ```
   */
  apply(delta: TranscriptDelta): readonly unknown[] {
    const messages = this.#messages;
    const end = delta.from + delta.append.length;
    for (let i = 0; i < delta.append.length; i++) {
      deepFreeze(delta.append[i]);
      messages[delta.from + i] = delta.append[i];
    }
    if (messages.length > end) messages.length = end;
    return Object.freeze(messages.slice());
  }
}
