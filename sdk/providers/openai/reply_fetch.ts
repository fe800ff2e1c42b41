/**
 * A `fetch` that keeps what a server said when it did not answer with an event stream,
 * so error texts can quote it: the `openai` client keeps only the `error` field of a
 * JSON error body and reads a 200 reply as a stream whatever it holds.
 *
 * @module
 */

import { boundEventStream, type EventStreamBounds } from "./bounded_event_stream.ts";
import { RESPONSE_LIMITS } from "./response_limits.ts";
import { sameOriginFetch } from "./same_origin_fetch.ts";
import { stripControlSequences } from "../../sandbox/strip_control_sequences.ts";

/** How much of a reply's body is kept to be quoted, in characters. */
export const QUOTED_BODY_CHARS = 300;

/** How much of a body is read at most, in bytes. */
const READ_LIMIT = 64 * 1024;

const errorBodies = new WeakMap<Headers, string>();

/** What to call when bytes of a stream's body arrive, by the response `replyFetch` returned. */
const readListeners = new WeakMap<Response, { onRead: () => void }>();

/**
 * Calls `onRead` whenever bytes of a stream's body arrive, comments (`: ping`) included,
 * which the client never hands on: the idle watchdog counts them as the server being
 * alive. Does nothing for a response that did not come from {@linkcode replyFetch}.
 *
 * @param response The response `replyFetch` returned (the client's `withResponse()`).
 * @param onRead What to call.
 *
 * @example
 * ```ts
 * import { onStreamRead, replyFetch } from "@tack/agent/sdk/providers/openai";
 * import { equal } from "node:assert/strict";
 *
 * const stream = () =>
 *   Promise.resolve(new Response(": ping\n\n", { headers: { "content-type": "text/event-stream" } }));
 * const response = await replyFetch(stream)("http://x/v1/chat/completions");
 * let reads = 0;
 * onStreamRead(response, () => reads++);
 * await response.text();
 * equal(reads, 1);
 * ```
 */
export function onStreamRead(response: Response, onRead: () => void): void {
  const listener = readListeners.get(response);
  if (listener) listener.onRead = onRead;
}

/**
 * A 2xx reply to a streaming request that is not an event stream (a server that ignores
 * `stream: true`, an HTML page from a proxy, an empty body). Not retried: the server
 * answered, and would answer the same way.
 *
 * @example
 * ```ts
 * import { NotAStreamError } from "@tack/agent/sdk/providers/openai";
 * import { equal } from "node:assert/strict";
 *
 * const error = new NotAStreamError(200, "application/json", '{"id":"x"}');
 * equal(error.message, "the reply is application/json, not an event stream");
 * equal(error.body, '{"id":"x"}');
 * ```
 */
export class NotAStreamError extends Error {
  /** The HTTP status. */
  readonly status: number;
  /** The reply's `content-type` (`""` when it had none). */
  readonly contentType: string;
  /** The start of the body, at most {@linkcode QUOTED_BODY_CHARS} characters. */
  readonly body: string;

  /**
   * Creates the error. Its message holds no body text: the `openai` client looks for
   * "timed out" in the messages of what `fetch` throws.
   *
   * @param status The HTTP status.
   * @param contentType The reply's `content-type`.
   * @param body The start of its body.
   */
  constructor(status: number, contentType: string, body: string) {
    super(`the reply is ${contentType || "without a content-type"}, not an event stream`);
    this.name = "NotAStreamError";
    this.status = status;
    this.contentType = contentType;
    this.body = body;
  }
}

/** Reads at most `READ_LIMIT` bytes of a body as text, and cancels the rest. */
async function readCapped(response: Response): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < READ_LIMIT) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

/**
 * The start of a server's text, for a one-line message: whitespace folded, escape
 * sequences, control characters and bidirectional marks left out (the message is read by
 * the model and shown on terminals), cut to {@linkcode QUOTED_BODY_CHARS} characters.
 *
 * @param body The body.
 * @returns At most {@linkcode QUOTED_BODY_CHARS} characters, with the full length when cut.
 *
 * @example
 * ```ts
 * import { quote } from "@tack/agent/sdk/providers/openai";
 * import { equal } from "node:assert/strict";
 *
 * equal(quote("<html>\n  <b>502</b>\n</html>"), "<html> <b>502</b> </html>");
 * equal(quote("\x1b[31mred\x1b[0m\r\n\u202Eevil"), "red evil");
 * ```
 */
export function quote(body: string): string {
  const folded = stripControlSequences(body.replace(/\s+/g, " ")).replace(/\s+/g, " ").trim();
  return folded.length > QUOTED_BODY_CHARS
    ? `${folded.slice(0, QUOTED_BODY_CHARS)}… (${folded.length} characters)`
    : folded;
}

/**
 * Wraps a `fetch` for the `openai` client: an error reply's body is read and kept (see
 * {@linkcode errorBodyOf}) before the client sees it, and a 2xx reply whose
 * `content-type` says it is not an event stream fails as {@linkcode NotAStreamError},
 * quoting the start of its body. The body of an event stream (or of a 2xx reply without a
 * `content-type`) is bounded by `bounds` (see {@linkcode boundEventStream}): past them
 * it errors with `ResponseTooLargeError`, which ends the turn.
 *
 * @param inner The `fetch` to call; default the global one, looked up per request.
 * @param bounds Bytes of body and of one event a stream may hold (default
 *   `RESPONSE_LIMITS`: 100,000,000 and 10 MiB). Redirects are followed within the origin
 *   only ({@linkcode sameOriginFetch}); another fails as `RedirectRefusedError`.
 * @param redact Takes secrets out of a body before it is quoted (cut, a secret could
 *   leave its start behind).
 * @returns The wrapping `fetch`.
 *
 * @example A server that ignores `stream: true`
 * ```ts
 * import { NotAStreamError, replyFetch } from "@tack/agent/sdk/providers/openai";
 * import { equal, rejects } from "node:assert/strict";
 *
 * const json = () => Promise.resolve(Response.json({ id: "chatcmpl-1" }));
 * await rejects(replyFetch(json)("http://x/v1/chat/completions"), (error: NotAStreamError) => {
 *   equal(error.body, '{"id":"chatcmpl-1"}');
 *   return true;
 * });
 * ```
 */
export function replyFetch(
  inner?: typeof fetch,
  bounds: EventStreamBounds = {
    maxBytes: RESPONSE_LIMITS.maxBytes,
    maxEventBytes: RESPONSE_LIMITS.maxEventBytes,
  },
  redact: (text: string) => string = (text) => text,
): typeof fetch {
  return async (input, init) => {
    // Following to another origin would send the key, custom headers and transcript there.
    const response = await sameOriginFetch(inner ?? fetch, input, init);
    const contentType = response.headers.get("content-type") ?? "";
    if (response.ok) {
      if (contentType === "" || /event-stream/i.test(contentType)) {
        if (!response.body) return response;
        const listener = { onRead: () => {} };
        const body = boundEventStream(response.body, bounds, () => listener.onRead());
        const bounded = new Response(body, {
          status: response.status,
          statusText: response.statusText,
          headers: response.headers,
        });
        readListeners.set(bounded, listener);
        return bounded;
      }
      const body = quote(redact(await readCapped(response)));
      throw new NotAStreamError(response.status, contentType, body);
    }
    const body = await readCapped(response).catch(() => "");
    const copy = new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
    errorBodies.set(copy.headers, body);
    return copy;
  };
}

/**
 * The body of an error reply that went through {@linkcode replyFetch}, found by the
 * headers the client puts on its `APIError`.
 *
 * @param headers The error's `headers`.
 * @returns The body, or `undefined` when it was not seen.
 *
 * @example
 * ```ts
 * import { errorBodyOf, replyFetch } from "@tack/agent/sdk/providers/openai";
 * import { equal } from "node:assert/strict";
 *
 * const notFound = () => Promise.resolve(new Response("Cannot POST /v1/x", { status: 404 }));
 * const response = await replyFetch(notFound)("http://x/v1/x");
 * equal(errorBodyOf(response.headers), "Cannot POST /v1/x");
 * ```
 */
export function errorBodyOf(headers: Headers | undefined): string | undefined {
  return headers ? errorBodies.get(headers) : undefined;
}
