/**
 * What a sandbox child may send unasked: its manifest, once, at start (and `fatal` or
 * `out_of_memory`, which end it). Every other message answers a call or a hook the host
 * sent it. A message that answers nothing is a protocol fault: the host would parse and
 * drop it, and a plugin sending them as fast as it could (from its top level, with no
 * permissions) kept a host core busy (6.5 s of CPU in 10 s; found by the sandbox attack).
 *
 * @module
 */

import type { ChildMessage } from "./protocol.ts";

/** What the host is waiting for from one child. */
export interface Awaited {
  /** It reported its manifest. */
  started: boolean;
  /** Calls sent to it that it has not answered. */
  pending: ReadonlyMap<number, unknown>;
  /** Calls cancelled that it has not answered (their updates and result may still come). */
  cancelled: ReadonlySet<number>;
  /** Hooks sent to it that it has not answered. */
  hooks: ReadonlyMap<number, unknown>;
}

/**
 * Why a child's message was not asked for, or `undefined` when it answers something the
 * host waits for (or is the first manifest).
 *
 * @param message What the child sent.
 * @param awaited What the host is waiting for from it.
 * @returns The words after "sent a message it was not asked for", or `undefined`.
 *
 * @example An update for a call never made
 * ```ts
 * import { unaskedMessage } from "./unasked_message.ts";
 * import { equal } from "node:assert/strict";
 *
 * const awaited = { started: true, pending: new Map(), cancelled: new Set<number>(), hooks: new Map() };
 * const update = { type: "update" as const, id: 7, partial: { content: [] } };
 * equal(unaskedMessage(update, awaited), `(an "update" for id 7)`);
 * equal(unaskedMessage(update, { ...awaited, pending: new Map([[7, {}]]) }), undefined);
 * ```
 */
export function unaskedMessage(message: ChildMessage, awaited: Awaited): string | undefined {
  switch (message.type) {
    case "manifest":
      return awaited.started ? "(its manifest again)" : undefined;
    case "update":
    case "result":
      return awaited.pending.has(message.id) || awaited.cancelled.has(message.id)
        ? undefined
        : `(${message.type === "update" ? "an" : "a"} "${message.type}" for id ${message.id})`;
    case "hook_result":
      return awaited.hooks.has(message.id) ? undefined : `(a "hook_result" for id ${message.id})`;
    default:
      return undefined;
  }
}
