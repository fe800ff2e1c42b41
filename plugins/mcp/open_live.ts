/**
 * Opening one connection to a server: its transport, the SDK's client over it, the watch on
 * what the server sends, and `initialize`. What happens to the connection afterwards is the
 * caller's (`McpConnection`).
 *
 * @module
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { CLIENT_INFO, type Live, makeTransport, terminate } from "./make_transport.ts";
import type { McpServerConfig } from "./options.ts";
import type { ProgressRoutes } from "./progress_routes.ts";
import { watchServerMessages } from "./server_messages.ts";

/** What {@linkcode openLive} needs, and whom it tells. */
export interface OpenLiveOptions {
  /** The server. */
  config: McpServerConfig;
  /** How long a stdio server gets to exit before SIGKILL. */
  killGraceMs: number;
  /** How long `initialize` may take. */
  connectTimeoutMs: number;
  /** The bound on messages that answer nothing (see `watchServerMessages`). */
  maxNonAnswersPerSecond: number;
  /** Where progress notifications go. */
  progress: ProgressRoutes;
  /** Called once the server is being started (its transport exists). */
  onStart: () => void;
  /** Called when the server says its tool list changed. */
  onToolsChanged: () => void;
  /**
   * Called once when the connection is ended by the plugin (a message over the limit, a
   * flood), with `live.failure` set: the calls in flight fail with it, the caller retires it.
   */
  onEnded: (live: Live) => void;
  /** Called when the SDK's client closes. */
  onClosed: (live: Live) => void;
}

/**
 * Starts a server and completes `initialize`. On failure the server is ended and the
 * reason thrown as it is (the caller names the server).
 *
 * @param options The server, its limits and the callbacks.
 * @returns The live connection.
 *
 * @example A server that cannot be reached: the reason, as it is
 * ```ts
 * import { openLive } from "./open_live.ts";
 * import { ProgressRoutes } from "./progress_routes.ts";
 * import { rejects } from "node:assert/strict";
 *
 * const nothing = () => {};
 * await rejects(openLive({
 *   config: { url: "http://127.0.0.1:9/mcp" }, // a port fetch refuses
 *   killGraceMs: 100, connectTimeoutMs: 1_000, maxNonAnswersPerSecond: 10,
 *   progress: new ProgressRoutes(),
 *   onStart: nothing, onToolsChanged: nothing, onEnded: nothing, onClosed: nothing,
 * }));
 * ```
 */
export async function openLive(options: OpenLiveOptions): Promise<Live> {
  // A message over the limit or a flood ends the connection at once, not at the calls'
  // timeouts: they fail with `live.failure`; the next call starts afresh.
  const ended: { live?: Live } = {};
  const end = (error: Error) => {
    const live = ended.live;
    if (!live || live.failure) return;
    live.failure = error;
    options.onEnded(live);
  };
  const transport = await makeTransport(options.config, options.killGraceMs, end);
  const client = new Client(CLIENT_INFO);
  const live: Live = ended.live = { client, transport };
  client.onclose = () => options.onClosed(live);
  // Errors also reach the pending requests (as rejections) or onclose; the SDK logs
  // them to the console unless a handler is set. One does not: an HTTP event stream the
  // SDK gave up resuming (a server that died mid-call) leaves its request waiting for ever,
  // so that ends the connection, and its calls fail now instead of at their timeouts.
  client.onerror = (error: Error) => {
    if (/^Maximum reconnection attempts/.test(error.message)) {
      end(new Error(`the server's event stream broke and could not be resumed (${error.message})`));
    }
  };
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => options.onToolsChanged());
  const messages = watchServerMessages(transport, {
    progress: options.progress,
    onFlood: end,
    mostPerSecond: options.maxNonAnswersPerSecond,
  });
  options.onStart();
  try {
    await client.connect(transport, { timeout: options.connectTimeoutMs });
    if (live.failure) throw live.failure; // ended after `initialize` was answered
    messages.takeOver();
  } catch (error) {
    await terminate(transport);
    await client.close().catch(() => {});
    throw live.failure ?? error;
  }
  return live;
}
