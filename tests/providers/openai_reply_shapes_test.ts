/**
 * Replies that are not what OpenAI sends: other servers' error bodies, a 200 that is not
 * a stream, an empty reply, a timeout. Each message keeps the server's own words.
 */
import type { OpenAIOptions } from "@tack/agent/sdk/providers/openai";
import { describeError } from "@tack/agent/sdk/providers/openai";
import OpenAI from "@openai/openai";
import { equal } from "node:assert/strict";
import { type FakeOpenAIServer, startFakeOpenAI } from "../support/fake_openai_server.ts";
import { ask, runTurn } from "./stream_helpers.ts";
import { quickModel } from "./stream_helpers.ts";

function model(server: FakeOpenAIServer, options: Partial<OpenAIOptions> = {}) {
  return quickModel(server.baseURL, options);
}

const CHECK_URL = "(check the model name and the base URL (the baseURL option or OPENAI_BASE_URL))";

Deno.test("an error body in another shape keeps its text (Express, HTML, plain text)", async () => {
  await using server = await startFakeOpenAI({
    turns: [
      {
        status: 404,
        contentType: "application/json",
        rawBody: '{"error":"Not Found","message":"Cannot POST /v1/responses","statusCode":404}',
      },
      {
        status: 404,
        contentType: "text/html",
        rawBody: "<!DOCTYPE html>\n<html><head><style>p{}</style></head>" +
          "<body><pre>Cannot POST /v1/chat/completions</pre></body></html>",
      },
      { status: 400, contentType: "application/json", rawBody: '{"detail":"model not loaded"}' },
      { status: 400, rawBody: "" },
    ],
  });
  const texts = [];
  for (const api of ["responses", "chat", "chat", "chat"] as const) {
    texts.push((await runTurn(model(server, { api }), ask("hi"))).message.errorMessage);
  }
  equal(
    texts[0],
    `${server.baseURL} answered 404 for model m: Not Found: Cannot POST /v1/responses ${CHECK_URL}`,
  );
  equal(
    texts[1],
    `${server.baseURL} answered 404 for model m: Cannot POST /v1/chat/completions ${CHECK_URL}`,
  );
  equal(texts[2], `${server.baseURL} answered 400 for model m: model not loaded`);
  equal(texts[3], `${server.baseURL} answered 400 for model m: (an empty body)`);
});

Deno.test("a 200 reply that is not a stream is quoted (capped) and not retried", async () => {
  const long = "x".repeat(1000);
  await using server = await startFakeOpenAI({
    turns: [
      {
        contentType: "application/json",
        rawBody: '{"object":"chat.completion","choices":[{"message":{"content":"hi"}}]}',
      },
      { contentType: "text/plain", rawBody: "" },
      { contentType: "text/html", rawBody: long },
    ],
  });
  const texts = [];
  for (let i = 0; i < 3; i++) {
    texts.push((await runTurn(model(server), ask("hi"))).message.errorMessage);
  }
  equal(
    texts[0],
    `${server.baseURL} answered 200 for model m with application/json instead of an event ` +
      'stream: a body of {"object":"chat.completion","choices":[{"message":{"content":"hi"}}]}',
  );
  equal(
    texts[1],
    `${server.baseURL} answered 200 for model m with text/plain instead of an event stream: ` +
      "an empty body",
  );
  equal(
    texts[2],
    `${server.baseURL} answered 200 for model m with text/html instead of an event stream: ` +
      `a body of ${"x".repeat(300)}… (1000 characters)`,
  );
  equal(server.requests.length, 3);
});

Deno.test("describeError: a timeout says so, with timeoutMs when set; an OS connect timeout is a connect failure", () => {
  const context = { baseURL: "http://h/v1", model: "m" };
  const aborted = new DOMException("The signal has been aborted", "AbortError");
  const timeout = Object.assign(new OpenAI.APIConnectionTimeoutError(), { cause: aborted });
  equal(
    describeError(timeout, { ...context, timeoutMs: 250 }),
    "The request to http://h/v1 timed out after 250 ms (timeoutMs)",
  );
  equal(describeError(timeout, context), "The request to http://h/v1 timed out");
  const connect = Object.assign(new OpenAI.APIConnectionTimeoutError(), {
    cause: new TypeError("tcp connect error: Operation timed out (os error 110)"),
  });
  equal(
    describeError(connect, context),
    "Cannot connect to http://h/v1: tcp connect error: Operation timed out (os error 110)",
  );
});
