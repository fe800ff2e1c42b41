/**
 * The progress notifications of one connection's calls: each call gets a token of the
 * plugin's own, and its notifications, taken from the transport as each message is read,
 * before the SDK sees them, are handed to the call, up to a bound.
 *
 * @module
 */

import type { JSONRPCMessage, Progress } from "@modelcontextprotocol/sdk/types.js";

/**
 * The most progress notifications one call may receive. Past it the server is flooding: the
 * connection is ended (a stdio server stopped), and its calls in flight with it.
 */
export const MAX_PROGRESS_PER_CALL = 100_000;

/** One call's progress. */
interface Route {
  deliver: (progress: Progress) => void;
  received: number;
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
 * Progress is taken from the transport, not from the SDK (see `watchServerMessages`): the SDK
 * hands notifications to their handlers a microtask after a response read in the same chunk
 * (so a call's last progress found its handler gone), and it parses each one again, and makes
 * an error of each with a token it did not make, before dropping it.
 *
 * @example A call's progress
 * ```ts
 * import { ProgressRoutes } from "./progress_routes.ts";
 * import { deepEqual, equal } from "node:assert/strict";
 *
 * const routes = new ProgressRoutes();
 * const seen: number[] = [];
 * const token = routes.add((progress) => seen.push(progress.progress));
 * equal(routes.take({ progressToken: token, progress: 1 }, () => {}), true);
 * routes.delete(token);
 * equal(routes.take({ progressToken: token, progress: 2 }, () => {}), false); // the call ended
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
   * @returns The token to send with the call (`_meta.progressToken`).
   */
  add(deliver: (progress: Progress) => void): string {
    const token = `tack-${++this.#tokens}`;
    this.#routes.set(token, { deliver, received: 0 });
    return token;
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
   * Hands a progress notification's params to its call, if that call is in flight and has
   * not received more than {@linkcode MAX_PROGRESS_PER_CALL}.
   *
   * @param params The notification's params.
   * @param onFlood Called once, when a call receives more than the most, with the error that
   * ends the connection (`the server sent more than 100000 progress notifications for one
   * call`).
   * @returns Whether a call in flight has the token.
   */
  take(
    params: Progress & { progressToken: unknown },
    onFlood: (error: Error) => void,
  ): boolean {
    const { progressToken, ...progress } = params;
    const route = this.#routes.get(String(progressToken));
    if (!route) return false;
    if (++route.received <= MAX_PROGRESS_PER_CALL) route.deliver(progress);
    else if (route.received === MAX_PROGRESS_PER_CALL + 1) {
      onFlood(
        new Error(
          `the server sent more than ${MAX_PROGRESS_PER_CALL} progress notifications for one call`,
        ),
      );
    }
    return true;
  }
}
