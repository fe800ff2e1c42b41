import { APIConnectionError, APIError } from "@openai/openai";
import {
  DEFAULT_RETRY_POLICY,
  IncompleteStreamError,
  isRetryable,
  retryAfterMs,
  retryDelayMs,
} from "@tack/agent/sdk/providers/openai";
import { equal } from "node:assert/strict";

const status = (code: number, headers: Record<string, string> = {}) =>
  new APIError(code, { message: "x" }, undefined, new Headers(headers));

Deno.test("transient failures are retryable, rejections are not", () => {
  for (const code of [408, 409, 429, 500, 502, 503]) {
    equal(isRetryable(status(code)), true, `${code}`);
  }
  for (const code of [400, 401, 403, 404, 422]) equal(isRetryable(status(code)), false, `${code}`);
  equal(
    isRetryable(new APIError(undefined, { message: "in-stream" }, undefined, undefined)),
    false,
  );
  equal(isRetryable(new APIConnectionError({ cause: new TypeError("refused") })), true);
  const refused = new Error("Connection refused (os error 111)");
  equal(isRetryable(new TypeError("fetch failed", { cause: refused })), true);
  // A TypeError of our own (a chunk of an unexpected shape) is no connection's.
  equal(isRetryable(new TypeError("Cannot read properties of null (reading 'type')")), false);
  equal(isRetryable(new IncompleteStreamError()), true);
  equal(isRetryable(new SyntaxError("malformed")), false);
  const denied = new TypeError("fetch", { cause: new Deno.errors.NotCapable("net") });
  equal(isRetryable(denied), false);
  equal(isRetryable(new APIConnectionError({ cause: new Deno.errors.NotCapable("net") })), false);
});

Deno.test("Retry-After is read as seconds, an HTTP date, or retry-after-ms", () => {
  equal(retryAfterMs(new Headers({ "retry-after": "1.5" })), 1500);
  equal(retryAfterMs(new Headers({ "retry-after-ms": "250", "retry-after": "9" })), 250);
  const now = Date.parse("2026-01-01T00:00:00Z");
  equal(retryAfterMs(new Headers({ "retry-after": "Thu, 01 Jan 2026 00:00:03 GMT" }), now), 3000);
  equal(retryAfterMs(new Headers({ "retry-after": "Wed, 31 Dec 2025 00:00:00 GMT" }), now), 0);
  equal(retryAfterMs(new Headers({ "retry-after": "soon" })), undefined);
  equal(retryAfterMs(undefined), undefined);
});

Deno.test("backoff doubles within its jitter window up to the cap", () => {
  const policy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 100, maxDelayMs: 1000 };
  const error = new TypeError("x");
  equal(retryDelayMs(0, error, policy, () => 0), 50);
  equal(retryDelayMs(0, error, policy, () => 0.999), 100);
  equal(retryDelayMs(2, error, policy, () => 0), 200);
  equal(retryDelayMs(2, error, policy, () => 0.999), 400);
  equal(retryDelayMs(9, error, policy, () => 0.999), 1000);
});

Deno.test("Retry-After wins over backoff, unless it is longer than allowed", () => {
  const policy = { ...DEFAULT_RETRY_POLICY, maxRetryAfterMs: 5000 };
  equal(retryDelayMs(0, status(429, { "retry-after": "4" }), policy), 4000);
  equal(retryDelayMs(0, status(429, { "retry-after": "6" }), policy), undefined);
});
