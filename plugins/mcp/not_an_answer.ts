/**
 * An HTTP server's reply to a POST that carried a request, when the reply is a body but not the
 * request's JSON-RPC answer: `text/plain` "hello", a JSON object that is no JSON-RPC message, a
 * JSON-RPC message that answers another request or none (an empty batch, a notification). The
 * SDK refused the first two with a line that did not say what came back (`Unexpected content
 * type: text/plain`, `Invalid input`), and left a call to wait for its timeout on the others.
 * Here such a reply fails its request at once, quoting what came back.
 *
 * @module
 */

import { pageText } from "../../sdk/page_text.ts";
import { InvalidResponseError, responseIssues } from "./invalid_response.ts";
import { requestIds } from "./unanswered_stream.ts";

/**
 * A reply that is not the JSON-RPC answer to the request it came for: its status, its content
 * type and what it says (an HTML page as its text, one line, 500 characters at most).
 *
 * @example
 * ```ts
 * import { NotAnAnswerError } from "./not_an_answer.ts";
 * import { equal } from "node:assert/strict";
 *
 * const error = new NotAnAnswerError(200, "text/plain", "hello");
 * equal(error.reply, "HTTP 200 (text/plain), not a JSON-RPC answer: hello");
 * equal(error.message, "the server answered with HTTP 200 (text/plain), not a JSON-RPC answer: hello");
 * ```
 */
export class NotAnAnswerError extends InvalidResponseError {
  /** What came back, in one line: `HTTP 200 (text/plain), not a JSON-RPC answer: hello`. */
  readonly reply: string;

  /**
   * @param status The reply's HTTP status.
   * @param contentType Its `content-type` (empty when it had none).
   * @param body Its body.
   */
  constructor(status: number, contentType: string, body: string) {
    const reply = `HTTP ${status} (${contentType || "no content type"}), not a JSON-RPC answer: ${
      pageText(body) || "(no body)"
    }`;
    super(`the server answered with ${reply}`);
    this.name = "NotAnAnswerError";
    this.reply = reply;
  }
}

/** A media type without its parameters, in lower case (`application/json`). */
function essence(contentType: string): string {
  return (contentType.split(";", 1)[0] ?? "").trim().toLowerCase();
}

/** Whether `message` is a response (an id, no method) to the request `id`, ids compared as the SDK compares them. */
function answers(message: unknown, id: unknown): message is object {
  if (typeof message !== "object" || message === null || "method" in message) return false;
  const answered = (message as { id?: unknown }).id;
  return (typeof answered === "number" || typeof answered === "string") &&
    Number(answered) === Number(id);
}

/**
 * Why a JSON reply's body does not answer each request: a {@linkcode NotAnAnswerError} when one
 * has no answer in it (or it is not JSON), an {@linkcode InvalidResponseError} when an answer is
 * not valid JSON-RPC (`result: null`); `undefined` when it answers each.
 */
function refusal(response: Response, body: string, ids: unknown[]): Error | undefined {
  const contentType = response.headers.get("content-type") ?? "";
  let messages: unknown[] = [];
  if (essence(contentType) === "application/json") {
    try {
      messages = [JSON.parse(body)].flat();
    } catch {
      // Not JSON: it answers nothing.
    }
  }
  for (const id of ids) {
    const answer = messages.find((message) => answers(message, id));
    if (answer === undefined) return new NotAnAnswerError(response.status, contentType, body);
    const issues = responseIssues(answer);
    if (issues) return new InvalidResponseError(issues);
  }
  return undefined;
}

/**
 * A `fetch` for the SDK's HTTP transport that reads the reply to a POST carrying requests, when
 * it is a body (not an event stream), and throws unless it holds a valid JSON-RPC answer to
 * each (a `202 Accepted` never does): the SDK then fails those requests at once with that error (a
 * {@linkcode NotAnAnswerError}, or an `InvalidResponseError` for an answer that is not valid
 * JSON-RPC, as from a stdio server), and the connection stays. Other replies pass unchanged;
 * a body that answers passes as it came.
 *
 * @param inner The `fetch` to wrap (default the global one); it bounds the body's size.
 * @returns The wrapping `fetch`.
 *
 * @example A 200 with `text/plain` "hello"
 * ```ts
 * import { answerCheckingFetch } from "./not_an_answer.ts";
 * import { rejects } from "node:assert/strict";
 *
 * const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () =>
 *   new Response("hello", { headers: { "content-type": "text/plain" } }));
 * await rejects(
 *   answerCheckingFetch()(`http://127.0.0.1:${server.addr.port}/`, {
 *     method: "POST",
 *     body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call" }),
 *   }),
 *   { reply: "HTTP 200 (text/plain), not a JSON-RPC answer: hello" },
 * );
 * await server.shutdown();
 * ```
 */
export function answerCheckingFetch(inner: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    const contentType = essence(response.headers.get("content-type") ?? "");
    if (init?.method !== "POST" || !response.ok) return response;
    // `202 Accepted` answers nothing, whatever its content type (the SDK checks for 202 before
    // it looks at one): the transport specification allows it only for a POST of notifications
    // or responses (the SDK would leave the request to its timeout). Its body is not waited for.
    if (response.status === 202) {
      if (requestIds(init.body).length === 0) return response;
      await response.body?.cancel().catch(() => {});
      throw new NotAnAnswerError(response.status, contentType, "");
    }
    if (contentType === "text/event-stream") return response;
    const ids = requestIds(init.body);
    if (ids.length === 0) return response;
    const body = await response.text();
    const refused = refusal(response, body, ids);
    if (refused) throw refused;
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
