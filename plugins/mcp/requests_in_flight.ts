/**
 * The requests a client has in flight on a transport, seen from the transport: sent and not
 * yet answered or cancelled. A response to none of them answers nothing.
 *
 * @module
 */

import type {
  Transport,
  TransportSendOptions,
} from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** What {@linkcode trackRequests} returns. */
export interface RequestsInFlight {
  /**
   * Whether a message answers a request in flight (a response with its id); that request is
   * then no longer in flight, so a second answer to it answers nothing.
   */
  answers(message: JSONRPCMessage): boolean;
  /** Takes every request in flight out of flight, and returns their ids. */
  drain(): number[];
}

/**
 * Watches what a client sends on a transport (call it once the client is connected: the
 * requests it sent before are not seen): a request is in flight from when it is sent until
 * an answer arrives, the client cancels it (`notifications/cancelled`, which the SDK sends on
 * a timeout or an abort), or sending it fails. Ids are compared as numbers, as the SDK
 * compares them (an answer with the id `"3"` answers request 3).
 *
 * @param transport The client's transport; its `send` is wrapped.
 * @returns The requests in flight.
 *
 * @example A request is in flight until its answer
 * ```ts
 * import { trackRequests } from "./requests_in_flight.ts";
 * import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
 * import { deepEqual, equal } from "node:assert/strict";
 *
 * const transport = { send: () => Promise.resolve() } as unknown as Transport;
 * const requests = trackRequests(transport);
 * await transport.send({ jsonrpc: "2.0", id: 3, method: "tools/list" });
 * equal(requests.answers({ jsonrpc: "2.0", id: 4, result: {} }), false);
 * equal(requests.answers({ jsonrpc: "2.0", id: 3, result: {} }), true);
 * equal(requests.answers({ jsonrpc: "2.0", id: 3, result: {} }), false); // answered already
 * await transport.send({ jsonrpc: "2.0", id: 5, method: "ping" });
 * deepEqual(requests.drain(), [5]);
 * ```
 */
export function trackRequests(transport: Transport): RequestsInFlight {
  const inFlight = new Set<number>();
  const send = transport.send.bind(transport);
  // Not an async function: what the client sends most (the answers to a server's pings, the
  // notifications) goes through without a promise of its own.
  transport.send = (message: JSONRPCMessage, options?: TransportSendOptions) => {
    if (!("method" in message)) return send(message, options);
    if (!("id" in message)) {
      if (message.method === "notifications/cancelled") {
        inFlight.delete(Number(message.params?.requestId));
      }
      return send(message, options);
    }
    const request = Number(message.id);
    inFlight.add(request);
    return send(message, options).catch((error: unknown) => {
      inFlight.delete(request);
      throw error;
    });
  };
  return {
    answers: (message) =>
      !("method" in message) && "id" in message && inFlight.delete(Number(message.id)),
    drain() {
      const ids = [...inFlight];
      inFlight.clear();
      return ids;
    },
  };
}
