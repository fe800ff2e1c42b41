/**
 * How an agent's event listeners are called: in order, each on its own, so one that throws
 * (or rejects) is reported and the others still hear the event. A listener's failure never
 * reaches the run.
 *
 * @module
 */

import type { AgentEvent } from "../core/agent_event.ts";
import { isPromiseLike } from "../core/maybe_promise.ts";
import type { AgentListener } from "./agent_init.ts";

function reportListenerError(event: AgentEvent, error: unknown): void {
  console.error(`Tack: an event listener threw on "${event.type}":`, error);
}

/**
 * Calls every listener with the event; a throw or a rejection is printed to stderr.
 *
 * @param listeners The listeners, in the order they subscribed.
 * @param event The event.
 *
 * @example One listener throws, the next still hears the event
 * ```ts
 * import { notifyListeners } from "./notify_listeners.ts";
 * import { equal } from "node:assert/strict";
 *
 * const heard: string[] = [];
 * const quiet = console.error;
 * console.error = () => {};
 * try {
 *   notifyListeners([() => { throw new Error("boom"); }, (e) => void heard.push(e.type)],
 *     { type: "agent_start" });
 * } finally {
 *   console.error = quiet;
 * }
 * equal(heard.join(), "agent_start");
 * ```
 */
export function notifyListeners(listeners: readonly AgentListener[], event: AgentEvent): void {
  for (let i = 0; i < listeners.length; i++) {
    try {
      const returned: unknown = listeners[i](event);
      if (isPromiseLike(returned)) {
        returned.then(undefined, (error) => reportListenerError(event, error));
      }
    } catch (error) {
      reportListenerError(event, error);
    }
  }
}
