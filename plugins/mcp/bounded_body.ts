/**
 * The most one MCP message may take, over either transport: a stdio server's line, an HTTP
 * server's JSON body or one event of its event stream. Past it the message is dropped
 * unread, so a server cannot grow the host's memory without end.
 *
 * @module
 */

/** The longest message (one JSON-RPC message or batch) a server may send, in bytes. */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/**
 * The error of a message over {@linkcode MAX_MESSAGE_BYTES}, as the model reads it.
 *
 * @param maxBytes The limit.
 * @returns `the server sent a message over 10 MB`.
 *
 * @example
 * ```ts
 * import { tooLargeError } from "./bounded_body.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(tooLargeError(10 * 1024 * 1024).message, "the server sent a message over 10 MB");
 * ```
 */
export function tooLargeError(maxBytes: number): Error {
  return new Error(`the server sent a message over ${Math.round(maxBytes / 1024 / 1024)} MB`);
}

const NEWLINE = 10;
const RETURN = 13;

/**
 * A body that errors once a message in it passes `maxBytes`: the whole body for JSON, each
 * event (up to its blank line, `\n\n` or `\r\n\r\n`) for an event stream, whose events
 * each carry one message.
 *
 * @param body The response's body.
 * @param eventStream Whether it is `text/event-stream`.
 * @param maxBytes The limit.
 * @param onTooLarge Called once, with the error, when the limit is passed.
 * @returns The bounded body.
 */
function boundBody(
  body: ReadableStream<Uint8Array>,
  eventStream: boolean,
  maxBytes: number,
  onTooLarge: (error: Error) => void,
): ReadableStream<Uint8Array> {
  /** The bytes of the message so far (of the event, in an event stream). */
  let size = 0;
  /** The two bytes before the chunk, to find a blank line cut between chunks. */
  let before = [0, 0];
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        const at = (i: number) => i >= 0 ? chunk[i] : before[2 + i];
        let start = 0; // where the event being read starts in this chunk
        let longest = 0;
        for (let i = eventStream ? chunk.indexOf(NEWLINE) : -1; i !== -1;) {
          if (at(i - 1) === NEWLINE || (at(i - 1) === RETURN && at(i - 2) === NEWLINE)) {
            longest = Math.max(longest, size + i + 1 - start);
            size = 0;
            start = i + 1;
          }
          i = chunk.indexOf(NEWLINE, i + 1);
        }
        size += chunk.length - start;
        before = [at(chunk.length - 2), at(chunk.length - 1)];
        if (Math.max(longest, size) > maxBytes) {
          const error = tooLargeError(maxBytes);
          onTooLarge(error);
          controller.error(error);
          return;
        }
        controller.enqueue(chunk);
      },
    }),
  );
}

/**
 * A `fetch` whose response bodies error once a message passes `maxBytes` (the whole body
 * for JSON, each event of an event stream), for the SDK's HTTP transport. Without it the
 * SDK reads a body whole: an endless JSON body or one endless event grew the host by
 * ~400 MB a second until it ran out of memory.
 *
 * @param onTooLarge Called with the error when a body passes the limit.
 * @param maxBytes The limit (default {@linkcode MAX_MESSAGE_BYTES}).
 * @param inner The `fetch` to bound (default the global one).
 * @returns The bounded `fetch`.
 *
 * @example A body over the limit fails to read
 * ```ts
 * import { boundedFetch } from "./bounded_body.ts";
 * import { equal } from "node:assert/strict";
 *
 * const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () =>
 *   Response.json({ text: "x".repeat(100) }));
 * let failed = "";
 * const fetch = boundedFetch((error) => failed = error.message, 50);
 * const response = await fetch(`http://127.0.0.1:${server.addr.port}/`);
 * await response.json().catch(() => {});
 * equal(failed, "the server sent a message over 0 MB");
 * await server.shutdown();
 * ```
 */
export function boundedFetch(
  onTooLarge: (error: Error) => void,
  maxBytes: number = MAX_MESSAGE_BYTES,
  inner: typeof fetch = fetch,
): typeof fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    // A null-body status cannot be given a body; Deno gives it none anyway.
    if (!response.body || [101, 204, 205, 304].includes(response.status)) return response;
    const eventStream = /^text\/event-stream\b/i.test(response.headers.get("content-type") ?? "");
    return new Response(boundBody(response.body, eventStream, maxBytes, onTooLarge), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
