/**
 * What the plugin does with each message a server sends, as the transport reads it, before the
 * SDK's client sees it: answers to requests in flight go on to the client; progress goes to its
 * call; everything else answers nothing, and is counted, one-second window by one-second
 * window (from the start, `initialize` included), and dropped unless the client handles it.
 * Past a bound a second the server is flooding, and its connection is ended.
 *
 * @module
 */

import type { MessageExtraInfo, Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { perSecondCount } from "./per_second_count.ts";
import { isProgress, type ProgressRoutes } from "./progress_routes.ts";
import { trackRequests } from "./requests_in_flight.ts";

/**
 * The most messages that answer nothing a server may send in one second, by default: every
 * message but the answer to a request in flight, progress for calls in flight included (so a
 * flood spread over many calls is one flood). The MCP project's reference server
 * (`server-everything`) sent at most ~460 in a second with its long-running operation asked for
 * 10,000 steps in a second (each step waits on a timer), ~4,600 with ten such operations at
 * once. At the 2–4 µs a message costs the host to read, check and drop, a server sending just
 * under the bound holds 2–4% of a core (a request, answered through the SDK, ~20 µs).
 */
export const MAX_NON_ANSWERS_PER_SECOND = 10_000;

/**
 * The notifications the SDK's client is given: the one the connection subscribes to, and the
 * one the SDK handles itself (a server cancelling a request it made of the client). The client
 * has no handler for others: they are dropped here, without the SDK's checks (~8.5 µs each,
 * three schemas tried and failed before the right one). A handler set on the client needs
 * its method here.
 */
const CLIENT_NOTIFICATIONS: ReadonlySet<string> = new Set([
  "notifications/tools/list_changed",
  "notifications/cancelled",
]);

/** The code of the error answer that ends each request in flight of a flooding server. */
const CONNECTION_CLOSED = -32000;

/**
 * The error of a server that sent more than `most` messages that answer nothing in a second.
 *
 * @param most The bound.
 * @returns `the server sent more than 10000 messages a second that answer nothing`.
 *
 * @example
 * ```ts
 * import { nonAnswersError } from "./server_messages.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(
 *   nonAnswersError(10_000).message,
 *   "the server sent more than 10000 messages a second that answer nothing",
 * );
 * ```
 */
export function nonAnswersError(most: number): Error {
  return new Error(`the server sent more than ${most} messages a second that answer nothing`);
}

/** What {@linkcode watchServerMessages} needs besides the transport. */
export interface ServerMessagesOptions {
  /** The calls in flight that take progress. */
  progress: ProgressRoutes;
  /**
   * Called once, when the server floods (more than `mostPerSecond` messages that answer nothing
   * in a second, or more progress for one call than `MAX_PROGRESS_PER_CALL`), with the error
   * that ends the connection.
   */
  onFlood: (error: Error) => void;
  /** The bound (default {@linkcode MAX_NON_ANSWERS_PER_SECOND}; `Infinity`: none). */
  mostPerSecond?: number;
  /** The clock, in ms (default `performance.now`). */
  now?: () => number;
}

/** What {@linkcode watchServerMessages} returns. */
export interface ServerMessages {
  /**
   * Takes the messages from the transport before the client sees them; call it once the
   * client is connected (its `connect` sets the transport's `onmessage`).
   */
  takeOver(): void;
}

/**
 * Watches the messages a server sends, as the transport reads them. Call it before the SDK's
 * client connects: while it does (`initialize`), each message is counted unless it answers a
 * request in flight, and the client handles it. Once connected, `takeOver()` puts the watch
 * before the client:
 *
 * - an answer to a request in flight goes on to the client, uncounted;
 * - every other message answers nothing and is counted; past `mostPerSecond` in one second (see
 *   {@linkcode perSecondCount}) the server is flooding;
 * - progress goes to its call if that call is in flight, and is dropped if not (a call that
 *   ended, a token never issued);
 * - a response that no request in flight has is dropped (the SDK made an error of each);
 * - a request goes on to the client, which answers it (a `ping`), and so do the notifications
 *   it handles; other notifications are dropped.
 *
 * Once the server floods, `onFlood` gets the error, each request in flight is answered with an
 * error of that text (so every call ends at once, not when the server is gone; while
 * connecting, the connection's end fails `initialize`), and every later message is dropped.
 *
 * @param transport The transport; its `onmessage` and `send` are wrapped.
 * @param options Where progress goes, what a flood calls, and the bound.
 * @returns The watch, to take over once the client is connected.
 *
 * @example A notification no one handles is counted and dropped; past the bound, a flood
 * ```ts
 * import { watchServerMessages } from "./server_messages.ts";
 * import { ProgressRoutes } from "./progress_routes.ts";
 * import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
 * import { deepEqual } from "node:assert/strict";
 *
 * const transport = { send: () => Promise.resolve() } as unknown as Transport;
 * const floods: string[] = [];
 * const watch = watchServerMessages(transport, {
 *   progress: new ProgressRoutes(),
 *   onFlood: (error) => floods.push(error.message),
 *   mostPerSecond: 2,
 *   now: () => 0,
 * });
 * const seen: unknown[] = []; // what reaches the SDK's client
 * transport.onmessage = (message: unknown) => seen.push(message); // as the client connects
 * watch.takeOver();
 * await transport.send({ jsonrpc: "2.0", id: 1, method: "tools/call" });
 * transport.onmessage?.({ jsonrpc: "2.0", method: "notifications/flood" });
 * transport.onmessage?.({ jsonrpc: "2.0", method: "notifications/flood" });
 * deepEqual([seen, floods], [[], []]);
 * transport.onmessage?.({ jsonrpc: "2.0", method: "notifications/flood" });
 * deepEqual(floods, ["the server sent more than 2 messages a second that answer nothing"]);
 * deepEqual(seen, [{ jsonrpc: "2.0", id: 1, error: { code: -32000, message: floods[0] } }]);
 * ```
 */
export function watchServerMessages(
  transport: Transport,
  options: ServerMessagesOptions,
): ServerMessages {
  const { progress, onFlood, mostPerSecond = MAX_NON_ANSWERS_PER_SECOND } = options;
  const requests = trackRequests(transport);
  const count = perSecondCount(mostPerSecond, options.now);
  let client: Transport["onmessage"];
  let takenOver = false;
  let flooded = false;
  const flood = (error: Error) => {
    flooded = true;
    onFlood(error);
    for (const id of requests.drain()) {
      client?.({ jsonrpc: "2.0", id, error: { code: CONNECTION_CLOSED, message: error.message } });
    }
  };
  // While connecting: the client's `connect` wraps this, and handles each message after it.
  transport.onmessage = (message: JSONRPCMessage) => {
    if (takenOver || flooded || requests.answers(message)) return;
    if (count()) flood(nonAnswersError(mostPerSecond));
  };
  return {
    takeOver() {
      client = transport.onmessage;
      takenOver = true;
      transport.onmessage = (message: JSONRPCMessage, extra?: MessageExtraInfo) => {
        if (flooded) return;
        if (requests.answers(message)) return client?.(message, extra);
        if (count()) return flood(nonAnswersError(mostPerSecond));
        if (isProgress(message)) {
          progress.take(message.params, flood);
          return;
        }
        if (!("method" in message)) return;
        if ("id" in message || CLIENT_NOTIFICATIONS.has(message.method)) client?.(message, extra);
      };
    },
  };
}
