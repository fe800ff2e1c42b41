/**
 * Error texts a person can act on, for every way a request to an OpenAI-compatible
 * server fails.
 *
 * @module
 */

import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from "@openai/openai";
import { errorBodyOf, NotAStreamError, quote } from "./reply_fetch.ts";
import { RedirectRefusedError } from "./same_origin_fetch.ts";
import { textOfPage } from "../../page_text.ts";
import { IncompleteStreamError, StalledStreamError } from "./stream_error.ts";
import { ResponseTooLargeError } from "./response_limits.ts";
import { isConnectionTypeError } from "./retry.ts";
import { thrownText } from "../../../core/thrown_text.ts";
import { withoutUserinfo } from "./redact.ts";

/** Where the request went, for the message. */
export interface ErrorContext {
  /** The base URL requested. */
  baseURL: string;
  /** The model asked for. */
  model: string;
  /** The per-request timeout, if one was set. */
  timeoutMs?: number;
  /** The default base URL was used because `OPENAI_BASE_URL` could not be read. */
  unreadBaseURL?: boolean;
  /**
   * The error's `Retry-After` asked for a longer wait than this (`maxRetryAfterMs`), so the
   * request was not retried, though retries were left.
   */
  refusedRetryAfterMs?: number;
  /** Whether the request had been retried before (for the `Retry-After` text). */
  retried?: boolean;
  /** Takes the API key and custom header values out of the text (see `redactor`). */
  redact?: (text: string) => string;
}

/** Said after every failure when `OPENAI_BASE_URL` could not be read. */
const UNREAD_BASE_URL_NOTE =
  "; OPENAI_BASE_URL was not read (this process may not): if it names your server, grant --allow-env=OPENAI_BASE_URL";

const HINTS: Record<number, string> = {
  401: "check the API key (the apiKey option or OPENAI_API_KEY)",
  403: "the API key is not allowed to use this model or endpoint",
  404: "check the model name and the base URL (the baseURL option or OPENAI_BASE_URL)",
  429: "rate limited or out of quota; retries were used up",
};

function causeText(error: unknown): string {
  let cause = error instanceof Error ? error.cause : undefined;
  let text = "";
  for (let depth = 0; cause instanceof Error && depth < 3; depth++) {
    text = cause.message;
    cause = cause.cause;
  }
  return text;
}

/**
 * Describes a failed request in the server's own words: its status and error text (from
 * any body shape, seen by `replyFetch`), a 2xx reply that is not a stream with
 * the start of its body, a timeout with `timeoutMs`, a connection refused (with the
 * address) or closed without a reply, a denied permission with the flag that grants it,
 * or a chunk that was not JSON; when the default base URL was used because
 * `OPENAI_BASE_URL` could not be read, it says so ({@linkcode UNREAD_BASE_URL_NOTE}).
 * Secrets are taken out with `context.redact`, and userinfo out of every URL.
 *
 * @param error What the request or the stream failed with.
 * @param context The base URL and model, to name them.
 * @returns One line for the assistant message's `errorMessage`.
 *
 * @example A refused connection
 * ```ts
 * import { describeError } from "@tack/agent/sdk/providers/openai";
 * import { equal } from "node:assert/strict";
 *
 * const error = new TypeError("fetch failed", { cause: new Error("Connection refused (os error 111)") });
 * equal(
 *   describeError(error, { baseURL: "http://127.0.0.1:11434/v1", model: "llama3" }),
 *   "The connection to http://127.0.0.1:11434/v1 failed: fetch failed (Connection refused (os error 111))",
 * );
 * ```
 */
export function describeError(error: unknown, context: ErrorContext): string {
  const redact = context.redact ?? withoutUserinfo;
  const text = redact(describeFailure(error, context, redact));
  return context.unreadBaseURL ? text + UNREAD_BASE_URL_NOTE : text;
}

function describeFailure(
  error: unknown,
  context: ErrorContext,
  redact: (text: string) => string,
): string {
  const where = context.baseURL;
  const denied = error instanceof Deno.errors.NotCapable
    ? error
    : error instanceof Error && error.cause instanceof Deno.errors.NotCapable
    ? error.cause
    : error instanceof Error && error.cause instanceof Error &&
        error.cause.cause instanceof Deno.errors.NotCapable
    ? error.cause.cause
    : undefined;
  if (denied) {
    const host = hostOf(where);
    return `Cannot reach ${where}: network access is not permitted (${denied.message}); ` +
      `grant it with --allow-net=${host}`;
  }
  if (error instanceof APIUserAbortError) return "The request was aborted";
  if (error instanceof APIConnectionError) return connectionText(error, context);
  if (error instanceof APIError) {
    const text = providerText(error, redact);
    if (error.status === undefined) {
      return `${where} reported an error mid-stream (model ${context.model}): ${text}`;
    }
    const hint = context.refusedRetryAfterMs !== undefined
      ? refusedRetryText(error.headers, context.refusedRetryAfterMs, context.retried === true)
      : HINTS[error.status] ??
        (error.status >= 500 ? "the server failed; retries were used up" : undefined);
    return `${where} answered ${error.status} for model ${context.model}: ${text}` +
      (hint ? ` (${hint})` : "");
  }
  if (
    error instanceof IncompleteStreamError || error instanceof StalledStreamError ||
    error instanceof ResponseTooLargeError
  ) {
    return `${where}: ${error.message}`;
  }
  if (error instanceof SyntaxError) {
    return `${where} sent a malformed stream chunk (not JSON): ${error.message}`;
  }
  if (error instanceof TypeError && !isConnectionTypeError(error)) {
    return `${where} sent a stream chunk of an unexpected shape: ${error.message}`;
  }
  if (error instanceof TypeError) {
    const cause = causeText(error);
    return `The connection to ${where} failed: ${error.message}${cause ? ` (${cause})` : ""}`;
  }
  return thrownText(error);
}

/** Why a request with retries left was not retried: the wait its server asked for. */
function refusedRetryText(headers: Headers | undefined, maxMs: number, retried: boolean): string {
  const ms = headers?.get("retry-after-ms");
  const asked = ms ? `retry-after-ms: ${ms}` : `Retry-After: ${headers?.get("retry-after")}`;
  const field = asked.length > 60 ? `${asked.slice(0, 60)}…` : asked;
  return `the server asked to wait longer than maxRetryAfterMs (${maxMs} ms) before a retry ` +
    `(${field}); no ${retried ? "further " : ""}retry was made`;
}

/** Connect failures, as opposed to a connection made and then dropped or timed out. */
const CONNECT_FAILED =
  /tcp connect error|connection refused|dns error|failed to lookup|no route to host|network is unreachable/i;

/** A connection the server closed before any reply (curl's "empty reply"). */
const NO_REPLY =
  /connection closed before message completed|unexpected eof|empty reply|connection reset/i;

/** What failed before a reply came: the timeout, the connection, or a reply not a stream. */
function connectionText(error: APIConnectionError, context: ErrorContext): string {
  const where = context.baseURL;
  const cause = error.cause;
  if (cause instanceof NotAStreamError) {
    const body = cause.body === "" ? "an empty body" : `a body of ${cause.body}`;
    return `${where} answered ${cause.status} for model ${context.model} with ` +
      `${quote(cause.contentType) || "no content-type"} instead of an event stream: ${body}`;
  }
  if (cause instanceof RedirectRefusedError) {
    return `${where} answered ${cause.status} for model ${context.model}: a redirect to ` +
      `${quote(cause.location) || "nowhere"}, not followed (another origin would get the API key ` +
      "and the transcript, and only 5 redirects are followed; set baseURL to where it leads if you trust it)";
  }
  const detail = causeText(error) || error.message;
  // Our timeout aborts the request; a connect timeout of the OS is a connect failure.
  if (
    error instanceof APIConnectionTimeoutError && cause instanceof Error &&
    cause.name === "AbortError"
  ) {
    return context.timeoutMs === undefined
      ? `The request to ${where} timed out`
      : `The request to ${where} timed out after ${context.timeoutMs} ms (timeoutMs)`;
  }
  if (NO_REPLY.test(detail) && !CONNECT_FAILED.test(detail)) {
    return `${where} closed the connection without a reply: ${detail}`;
  }
  if (CONNECT_FAILED.test(detail) || error instanceof APIConnectionTimeoutError) {
    const hint = /connection refused/i.test(detail) ? " (is the server running?)" : "";
    return `Cannot connect to ${where}: ${detail}${hint}`;
  }
  return `The connection to ${where} failed: ${detail}`;
}

/**
 * The provider's own error text, without the status the client prefixes: secrets taken
 * out before it is quoted (cut, a secret could leave its start behind).
 */
function providerText(error: APIError, redact: (text: string) => string): string {
  const said = (text: string) => quote(redact(text));
  const body = error.error as { message?: unknown } | undefined;
  if (body && typeof body.message === "string" && body.message !== "") return said(body.message);
  // The client keeps only a JSON body's `error` field: the whole body says more.
  const raw = errorBodyOf(error.headers);
  if (raw !== undefined && raw.trim() !== "") return said(bodyText(raw));
  if (body && typeof body === "object") return said(JSON.stringify(body));
  if (typeof body === "string" && body !== "") return said(body);
  return error.status === undefined ? said(error.message) : "(an empty body)";
}

/** The words of an error body in any shape: JSON fields that say something, or its text (not cut). */
function bodyText(raw: string): string {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    // HTML error pages: their text, not their markup.
    return /^\s*</.test(raw) ? textOfPage(raw) : raw;
  }
  const said: string[] = [];
  const collect = (value: unknown, depth: number) => {
    if (typeof value === "string" && value !== "" && !said.includes(value)) said.push(value);
    if (typeof value !== "object" || value === null || depth > 1) return;
    for (const key of ["error", "message", "detail", "msg", "title"]) {
      collect((value as Record<string, unknown>)[key], depth + 1);
    }
  };
  collect(json, 0);
  return said.length > 0 ? said.join(": ") : raw;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
