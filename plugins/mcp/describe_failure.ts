import { InvalidResponseError } from "./invalid_response.ts";
import { NotAnAnswerError } from "./not_an_answer.ts";
import { isUnanswered } from "./unanswered_stream.ts";
import { pageText } from "../../sdk/page_text.ts";
import { thrownText } from "../../core/thrown_text.ts";

/**
 * The error texts of MCP calls that did not get a result from the server.
 *
 * @module
 */

/** JSON-RPC codes the SDK raises itself. */
const CONNECTION_CLOSED = -32000;
const REQUEST_TIMEOUT = -32001;

/**
 * Says why a call to an MCP tool failed, naming the server and the tool: the server
 * closed the connection (it is restarted on the next call) or an HTTP response stream
 * without answering, it answered an HTTP request with a body that is not the request's JSON-RPC
 * answer, it sent an invalid response, it did not answer in time,
 * it could not be reached, or it answered with a protocol error.
 *
 * @param server The server's name.
 * @param tool The tool's name on the server.
 * @param error What the SDK (or the connection) threw.
 * @param timeoutMs The call's timeout, if the plugin set one.
 * @param kind What `tool` names: a tool (default) or a request such as
 * `resources/read demo://x`.
 * @returns The message for the error result.
 *
 * @example A server that exited mid-call
 * ```ts
 * import { describeFailure } from "@tack/agent/plugins/mcp";
 * import { equal } from "node:assert/strict";
 *
 * const error = Object.assign(new Error("MCP error -32000: Connection closed"), { code: -32000 });
 * equal(
 *   describeFailure("files", "read", error),
 *   'MCP server "files" closed the connection during tool "read"; it is restarted on the next call',
 * );
 * ```
 */
export function describeFailure(
  server: string,
  tool: string,
  error: unknown,
  timeoutMs?: number,
  kind: "tool" | "request" = "tool",
): string {
  const what = `${kind} "${tool}"`;
  // A server that puts the SDK's prefix in its own message gets it twice.
  const message = (thrownText(error))
    .replace(/^(MCP error -?\d+: )\1+/, "$1");
  const code = (error as { code?: unknown } | undefined)?.code;
  if (error instanceof NotAnAnswerError) {
    return `MCP server "${server}" answered ${what} with ${error.reply}`;
  }
  if (error instanceof InvalidResponseError) {
    return `MCP server "${server}" sent an invalid response to ${what}: ${error.message}`;
  }
  if (isUnanswered(error)) {
    return `MCP server "${server}" closed the response stream for ${what} without answering`;
  }
  if (code === CONNECTION_CLOSED) {
    return `MCP server "${server}" closed the connection during ${what}; it is restarted on the next call`;
  }
  if (code === REQUEST_TIMEOUT) {
    const within = timeoutMs === undefined ? "in time" : `within ${timeoutMs} ms`;
    return `MCP server "${server}" did not answer ${what} ${within}`;
  }
  if (message.startsWith("Cannot connect to MCP server")) return message;
  // The SDK's StreamableHTTPError: the HTTP status, and the reply's body (a gateway's page).
  const http = /^Streamable HTTP error: Error POSTing to endpoint: ([^]*)$/.exec(message);
  if (http && typeof code === "number" && code >= 100 && code < 600) {
    return `MCP server "${server}" answered ${what} with HTTP ${code}: ${pageText(http[1])}`;
  }
  if (typeof code === "number") {
    return `MCP server "${server}" rejected ${what}: ${message}`;
  }
  const failed = kind === "tool"
    ? `MCP tool "${tool}" on server "${server}"`
    : `MCP ${what} to server "${server}"`;
  return `${failed} failed: ${errorText(error)}; it is reconnected on the next call`;
}

/**
 * The message of what was thrown, with its cause's message in parentheses when that
 * says more (`fetch failed (… Connection refused …)`).
 *
 * @param error What was thrown.
 * @returns One line of text.
 *
 * @example A network error and its cause
 * ```ts
 * import { errorText } from "@tack/agent/plugins/mcp";
 * import { equal } from "node:assert/strict";
 *
 * const error = new TypeError("fetch failed", { cause: new Error("Connection refused") });
 * equal(errorText(error), "fetch failed (Connection refused)");
 * ```
 */
export function errorText(error: unknown): string {
  const message = error instanceof Error ? error.message || error.name : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : "";
  return cause && !message.includes(cause) ? `${message} (${cause})` : message;
}
