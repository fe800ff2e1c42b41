/**
 * A POST's event stream that ends (or breaks) before the server answered. The SDK's HTTP
 * transport resumes such a stream only when it carried an event id; otherwise it drops it, and
 * the request waited for its timeout. Here the stream ends with an error answer of its own, for
 * every request the POST carried, so the call fails at once.
 *
 * @module
 */

/** The code of the error answer put at the end of such a stream (the SDK's "Connection closed"). */
const UNANSWERED_CODE = -32000;
/** What the error answer says. */
const UNANSWERED_MESSAGE = "the server closed the response stream without answering";

const NEWLINE = 10;
const RETURN = 13;
const COLON = 58;
const LETTER_I = 105;
const LETTER_D = 100;

/**
 * Whether an error is the answer put at the end of a stream that ended without one.
 *
 * @param error What a request rejected with (the SDK's `McpError`).
 * @returns Whether it is that answer.
 *
 * @example
 * ```ts
 * import { isUnanswered } from "./unanswered_stream.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(isUnanswered({ code: -32000, data: { unanswered: true } }), true);
 * equal(isUnanswered({ code: -32000, message: "Connection closed" }), false);
 * ```
 */
export function isUnanswered(error: unknown): boolean {
  const { code, data } = (error ?? {}) as { code?: unknown; data?: { unanswered?: unknown } };
  return code === UNANSWERED_CODE && data?.unanswered === true;
}

/**
 * Watches an event stream for an `id:` line (one at its start, after a byte order mark, or
 * after a line break), which makes the stream resumable for the SDK. Any `id:` line counts,
 * even an empty one the SDK would not resume from: such a stream is left to the SDK.
 */
function idWatch(): { seen: () => boolean; feed: (chunk: Uint8Array) => void } {
  let seen = false;
  let first = true;
  /** The three bytes before the chunk; the stream starts as if after a line break. */
  let before = [NEWLINE, NEWLINE, NEWLINE];
  return {
    seen: () => seen,
    feed(chunk) {
      if (first && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) {
        chunk = chunk.subarray(3);
      }
      first = false;
      const at = (i: number) => i >= 0 ? chunk[i] : before[3 + i];
      for (let i = chunk.indexOf(COLON); i !== -1 && !seen; i = chunk.indexOf(COLON, i + 1)) {
        const start = at(i - 3);
        seen = at(i - 1) === LETTER_D && at(i - 2) === LETTER_I &&
          (start === NEWLINE || start === RETURN);
      }
      before = [at(chunk.length - 3), at(chunk.length - 2), at(chunk.length - 1)];
    },
  };
}

/**
 * The ids of the requests a POST body carries (one message or a batch).
 *
 * @param body The body the SDK sent (its JSON).
 * @returns The ids, none when it carried no request (or is not a string).
 *
 * @example
 * ```ts
 * import { requestIds } from "./unanswered_stream.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * deepEqual(requestIds('{"jsonrpc":"2.0","id":4,"method":"tools/call"}'), [4]);
 * deepEqual(requestIds('{"jsonrpc":"2.0","method":"notifications/initialized"}'), []);
 * ```
 */
export function requestIds(body: unknown): unknown[] {
  if (typeof body !== "string") return [];
  const messages = [JSON.parse(body)].flat() as { method?: unknown; id?: unknown }[];
  return messages.flatMap((message) =>
    message.method !== undefined && message.id !== undefined ? [message.id] : []
  );
}

/**
 * The events that answer each request with the error: after two line breaks, which end an
 * event the server left open (the SDK then reads it, where the event stream rules drop it).
 */
function errorEvents(ids: unknown[]): Uint8Array {
  const events = ids.map((id) =>
    `event: message\ndata: ${
      JSON.stringify({
        jsonrpc: "2.0",
        id,
        error: { code: UNANSWERED_CODE, message: UNANSWERED_MESSAGE, data: { unanswered: true } },
      })
    }\n\n`
  );
  return new TextEncoder().encode(`\n\n${events.join("")}`);
}

/**
 * The body of a POST's event stream, ending with an error answer for each request the POST
 * carried when it ends, or breaks, without an `id:` line. A request the server answered in the
 * stream has no handler left for the late error, which the SDK then ignores.
 */
function answeredAtEnd(
  body: ReadableStream<Uint8Array>,
  sent: unknown,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const ids = idWatch();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (!done) {
          if (!ids.seen()) ids.feed(value);
          controller.enqueue(value);
          return;
        }
      } catch {
        // A stream that breaks ends here as one that ended: the SDK resumes either (when it
        // had an event id), and a transport that closed it has failed its requests already.
      }
      if (!ids.seen()) controller.enqueue(errorEvents(requestIds(sent)));
      controller.close();
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

/**
 * A `fetch` for the SDK's HTTP transport whose POST event streams end with an error answer for
 * each request they carried when they end, or break, without an event id (which the SDK would
 * resume from). The request then fails at once with an `McpError` that
 * {@linkcode isUnanswered} recognizes, instead of waiting for its timeout: the SDK drops such a
 * stream and never answers the request. Other responses pass unchanged.
 *
 * @param inner The `fetch` to wrap (default the global one).
 * @returns The wrapping `fetch`.
 *
 * @example A stream that ends without answering gets an error answer
 * ```ts
 * import { answeringFetch } from "./unanswered_stream.ts";
 * import { equal } from "node:assert/strict";
 *
 * const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () =>
 *   new Response("", { headers: { "content-type": "text/event-stream" } }));
 * const response = await answeringFetch()(`http://127.0.0.1:${server.addr.port}/`, {
 *   method: "POST",
 *   body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call" }),
 * });
 * const text = await response.text();
 * equal(text.includes('"id":7,"error":{"code":-32000'), true);
 * await server.shutdown();
 * ```
 */
export function answeringFetch(inner: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    const eventStream = /^text\/event-stream\b/i.test(response.headers.get("content-type") ?? "");
    if (init?.method !== "POST" || !response.ok || !response.body || !eventStream) return response;
    return new Response(answeredAtEnd(response.body, init.body), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
