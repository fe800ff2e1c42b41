/**
 * The progress notifications of one connection's calls: each call gets a token of the
 * plugin's own, and its notifications are taken from the transport as each message is read,
 * before the SDK sees them, and handed to the call, up to a bound.
 *
 * @module
 */

import type { MessageExtraInfo, Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage, Progress } from "@modelcontextprotocol/sdk/types.js";

/**
 * The most progress notifications one call may receive. Past it the server is flooding: the
 * call is stopped and the connection ended (a stdio server stopped).
 */
export const MAX_PROGRESS_PER_CALL = 100_000;

/** One call's progress. */
interface Route {
  deliver: (progress: Progress) => void;
  received: number;
  /** Aborted, with the error, when the call receives more than the most. */
  flood: AbortController;
}

/** A call registered with {@linkcode ProgressRoutes.add}. */
export interface ProgressRoute {
  /** The token to send with the call (`_meta.progressToken`). */
  token: string;
  /** Aborted, with the error, when the call receives more than the most: stops the call. */
  signal: AbortSignal;
}

/**
 * Whether a message is a progress notification (which carries no `id`).
 *
 * @param message A message from the server.
 * @returns Whether it is `notifications/progress`.
 *
 * @example
 * ```ts
 * import { isProgress } from "./progress_routes.ts";
 * import { equal } from "node:assert/strict";
 *
 * const params = { progressToken: "tack-1", progress: 1 };
 * equal(isProgress({ jsonrpc: "2.0", method: "notifications/progress", params }), true);
 * equal(isProgress({ jsonrpc: "2.0", id: 1, result: {} }), false);
 * ```
 */
export function isProgress(
  message: JSONRPCMessage,
): message is JSONRPCMessage & { method: string; params: Progress & { progressToken: unknown } } {
  return "method" in message && message.method === "notifications/progress" &&
    !("id" in message);
}

/**
 * The calls in flight on a connection that asked for progress, by token.
 *
 * Progress is taken from the transport, not from the SDK: the SDK hands notifications to their
 * handlers a microtask after a response read in the same chunk (so a call's last progress found
 * its handler gone), and it parses each one again, and makes an error of each with a token it
 * did not make, before dropping it.
 *
 * @example A call's progress, taken from a connected transport
 * ```ts
 * import { ProgressRoutes } from "./progress_routes.ts";
 * import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
 * import { deepEqual } from "node:assert/strict";
 *
 * const transport = { onmessage: () => {} } as unknown as Transport; // as the SDK leaves it
 * const routes = new ProgressRoutes();
 * routes.tap(transport, () => {});
 * const seen: number[] = [];
 * const { token } = routes.add((progress) => seen.push(progress.progress));
 * const params = { progressToken: token, progress: 1 };
 * transport.onmessage?.({ jsonrpc: "2.0", method: "notifications/progress", params });
 * routes.delete(token);
 * deepEqual(seen, [1]);
 * ```
 */
export class ProgressRoutes {
  readonly #routes = new Map<string, Route>();
  #tokens = 0;

  /**
   * Registers a call.
   *
   * @param deliver Receives the call's progress.
   * @returns Its token, and a signal that stops the call when it receives too many.
   */
  add(deliver: (progress: Progress) => void): ProgressRoute {
    const token = `tack-${++this.#tokens}`;
    const flood = new AbortController();
    this.#routes.set(token, { deliver, received: 0, flood });
    return { token, signal: flood.signal };
  }

  /**
   * Forgets a call that ended; its late notifications are dropped.
   *
   * @param token Its token.
   */
  delete(token: string): void {
    this.#routes.delete(token);
  }

  /**
   * Takes the progress notifications of a connected transport (call it after the SDK's
   * client connected, which set its `onmessage`); every other message goes on to the SDK.
   *
   * @param transport The transport.
   * @param onFlood Called when a call receives more than {@linkcode MAX_PROGRESS_PER_CALL},
   * before its signal aborts, with the error that ends the connection (`the server sent more
   * than 100000 progress notifications for one call`).
   */
  tap(transport: Transport, onFlood: (error: Error) => void): void {
    const sdk = transport.onmessage;
    transport.onmessage = (message: JSONRPCMessage, extra?: MessageExtraInfo) => {
      if (!isProgress(message)) return sdk?.(message, extra);
      const { progressToken, ...progress } = message.params;
      const route = this.#routes.get(String(progressToken));
      if (!route) return;
      if (++route.received <= MAX_PROGRESS_PER_CALL) return route.deliver(progress);
      if (route.received === MAX_PROGRESS_PER_CALL + 1) {
        const error = new Error(
          `the server sent more than ${MAX_PROGRESS_PER_CALL} progress notifications for one call`,
        );
        onFlood(error);
        route.flood.abort(error);
      }
    };
  }
}
