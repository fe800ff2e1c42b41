/**
 * How the plugin reaches a server: the transport for a config (Tack's stdio transport, or
 * the SDK's streamable HTTP one, loaded on demand), and ending it.
 *
 * @module
 */

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { McpServerConfig } from "./options.ts";
import { StdioTransport } from "./stdio_transport.ts";
import { boundedFetch, MAX_MESSAGE_BYTES } from "./bounded_body.ts";
import { answeringFetch } from "./unanswered_stream.ts";
import { answerCheckingFetch } from "./not_an_answer.ts";
import { hostMay, netHostOf } from "../../sdk/sandbox/host_may.ts";

/** What Tack tells servers about itself in `initialize`. */
export const CLIENT_INFO: { name: string; version: string } = { name: "tack", version: "0.1.0" };

/** An open connection: the SDK's client over its transport. */
export interface Live {
  /** The SDK's client. */
  client: Client;
  /** The transport it runs over. */
  transport: Transport;
  /** Why the connection was ended by the plugin (a message over the limit), if it was. */
  failure?: Error;
}

/**
 * The transport for a config. The SDK's HTTP transport is imported on demand; Tack's
 * stdio transport reads the environment only when it starts a server, so an HTTP-only
 * plugin needs no `env` permission. Either calls `onTooLarge` when the server sends a
 * message over `MAX_MESSAGE_BYTES` (a stdio server is then ended; an HTTP body is dropped).
 * A POST's event stream that ends without answering (and without an event id, so the SDK
 * cannot resume it) fails its request at once (see `answeringFetch`), and so does a body that
 * is not its JSON-RPC answer (see `answerCheckingFetch`).
 */
export async function makeTransport(
  config: McpServerConfig,
  killGraceMs: number,
  onTooLarge?: (error: Error) => void,
): Promise<Transport> {
  // Asked first: a host without the grant gets an error naming the flag, not a prompt.
  if ("url" in config) {
    const host = netHostOf(new URL(config.url));
    if (!hostMay({ name: "net", host })) {
      throw new Error(
        `network access to ${host} is not permitted; grant it with --allow-net=${host}`,
      );
    }
    const { StreamableHTTPClientTransport } = await import(
      "@modelcontextprotocol/sdk/client/streamableHttp.js"
    );
    return new StreamableHTTPClientTransport(new URL(config.url), {
      requestInit: config.headers ? { headers: { ...config.headers } } : undefined,
      // The bound is outside the stream's answer: that answer is read within it, and a body
      // over the limit is an error, not a stream ending without answering. A body that is not
      // an answer is read within the bound too.
      fetch: answerCheckingFetch(
        boundedFetch((error) => onTooLarge?.(error), MAX_MESSAGE_BYTES, answeringFetch()),
      ),
    });
  }
  if (!hostMay({ name: "run", command: config.command })) {
    throw new Error(
      `running ${config.command} is not permitted; grant it with --allow-run=${config.command}`,
    );
  }
  return new StdioTransport({ ...config, killGraceMs, onTooLarge });
}

/**
 * Ends a server that stopped answering at once (SIGTERM, then SIGKILL after the grace
 * period), instead of first waiting for it to exit by itself.
 */
export async function terminate(transport: Transport): Promise<void> {
  if (transport instanceof StdioTransport) await transport.terminate();
}
