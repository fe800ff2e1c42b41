/**
 * The provider against a third-party OpenAI-compatible server: @copilotkit/aimock from
 * npm, started in the test on 127.0.0.1, with its fixtures and its fault injection.
 */
import { LLMock } from "../support/test_packages.ts";
import { openai, type OpenAIOptions } from "@tack/agent/sdk/providers/openai";
import { deepEqual, equal, match } from "node:assert/strict";
import { ask, runTurn } from "./stream_helpers.ts";

/**
 * Requests go through their own HTTP client, closed before aimock stops: node's
 * `server.close()` waits for idle keep-alive connections, which Deno's pool keeps open.
 */
let client: Deno.HttpClient;
const pooledFetch: typeof fetch = (input, init) => fetch(input, { ...init, client });

/** Runs `body` with an aimock server that answers "hi" and "overloaded". */
async function withAimock(body: (baseURL: string) => Promise<void>): Promise<void> {
  client = Deno.createHttpClient({});
  const mock = new LLMock({ port: 0, host: "127.0.0.1" });
  mock.onMessage("hi", { content: "Hello from aimock" });
  mock.onMessage("overloaded", {
    error: { message: "The model is overloaded", type: "server_error" },
    status: 503,
  });
  const url = await mock.start();
  try {
    await body(`${url}/v1`);
  } finally {
    client.close();
    await mock.stop();
  }
}

/** A model on aimock with quick retries; `chaos` sets aimock's fault headers. */
function model(baseURL: string, options: Partial<OpenAIOptions> = {}) {
  return openai({
    model: "gpt-4o",
    baseURL,
    apiKey: "k",
    retryBaseDelayMs: 1,
    retryMaxDelayMs: 2,
    fetch: pooledFetch,
    ...options,
  });
}

Deno.test("aimock: a streamed answer over Chat Completions and Responses", async () => {
  await withAimock(async (baseURL) => {
    for (const api of ["chat", "responses"] as const) {
      const turn = await runTurn(model(baseURL, { api }), ask("hi"));
      equal(turn.message.stopReason, "stop");
      deepEqual(turn.message.content, [{ type: "text", text: "Hello from aimock" }]);
    }
  });
});

Deno.test("aimock: an error fixture and an unmatched request keep the server's words", async () => {
  await withAimock(async (baseURL) => {
    const overloaded = await runTurn(model(baseURL), ask("overloaded"));
    equal(
      overloaded.message.errorMessage,
      `${baseURL} answered 503 for model gpt-4o: The model is overloaded ` +
        "(the server failed; retries were used up) (after 3 attempts)",
    );
    const unmatched = await runTurn(model(baseURL, { api: "responses" }), ask("zzz"));
    equal(
      unmatched.message.errorMessage,
      `${baseURL} answered 404 for model gpt-4o: No fixture matched ` +
        "(check the model name and the base URL (the baseURL option or OPENAI_BASE_URL))",
    );
  });
});

Deno.test("aimock faults: latency past timeoutMs is reported as a timeout, not a connect failure", async () => {
  await withAimock(async (baseURL) => {
    const slow = model(baseURL, {
      timeoutMs: 100,
      maxRetries: 1,
      headers: { "x-aimock-chaos-latency": "1000" },
    });
    const turn = await runTurn(slow, ask("hi"));
    equal(
      turn.message.errorMessage,
      `The request to ${baseURL} timed out after 100 ms (timeoutMs) (after 2 attempts)`,
    );
  });
});

Deno.test("aimock faults: a malformed 200 reply is quoted, not called a cut stream", async () => {
  await withAimock(async (baseURL) => {
    const turn = await runTurn(
      model(baseURL, { headers: { "x-aimock-chaos-malformed": "1" } }),
      ask("hi"),
    );
    equal(turn.message.stopReason, "error");
    match(
      turn.message.errorMessage!,
      new RegExp(
        `^${baseURL} answered 200 for model gpt-4o with application/json instead of an event ` +
          "stream: a body of \\{malformed json",
      ),
    );
    // Not retried: the server answered.
    equal(/attempts/.test(turn.message.errorMessage!), false);
  });
});

Deno.test("aimock faults: a connection closed without a reply is not 'Cannot connect'", async () => {
  await withAimock(async (baseURL) => {
    const turn = await runTurn(
      model(baseURL, { headers: { "x-aimock-chaos-disconnect": "1" } }),
      ask("hi"),
    );
    match(
      turn.message.errorMessage!,
      new RegExp(
        `^${baseURL} closed the connection without a reply: .*connection closed before ` +
          "message completed \\(after 3 attempts\\)$",
      ),
    );
  });
});

Deno.test("aimock faults: a dropped request (500) and a rate limit carry aimock's text", async () => {
  await withAimock(async (baseURL) => {
    const dropped = await runTurn(
      model(baseURL, { headers: { "x-aimock-chaos-drop": "1" } }),
      ask("hi"),
    );
    equal(
      dropped.message.errorMessage,
      `${baseURL} answered 500 for model gpt-4o: Chaos: request dropped ` +
        "(the server failed; retries were used up) (after 3 attempts)",
    );
    const limited = await runTurn(
      model(baseURL, { headers: { "x-aimock-chaos-ratelimit": "1" }, maxRetryAfterMs: 0 }),
      ask("hi"),
    );
    equal(
      limited.message.errorMessage,
      `${baseURL} answered 429 for model gpt-4o: Chaos: rate limit exceeded ` +
        "(the server asked to wait longer than maxRetryAfterMs (0 ms) before a retry " +
        "(Retry-After: 1); no retry was made)",
    );
  });
});
