/**
 * What a server says goes into `errorMessage` (read by the model, shown on a terminal,
 * kept in session files) folded to one line, without escape sequences, cut to 300
 * characters, and without the API key.
 */

import { equal } from "node:assert/strict";
import { startFakeOpenAI } from "../support/fake_openai_server.ts";
import { ask, quickModel, runTurn } from "./stream_helpers.ts";

/** A chat completion chunk with one delta, as an SSE event. */
function chunk(delta: unknown, finish: unknown = null): string {
  const choices = [{ index: 0, delta, finish_reason: finish }];
  return `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", choices })}\n\n`;
}

const HOSTILE = "\x1b[2J\x1b[31mFAKE PROMPT> \x1b]0;pwned\x07\nline2\r\u202Eevil";

Deno.test("an error body's message is folded, stripped of escapes and cut like any other", async () => {
  // Before, OpenAI-shaped messages went in whole: 60 KB with escapes, newlines, bidi.
  await using server = await startFakeOpenAI({
    turns: [{
      status: 400,
      contentType: "application/json",
      rawBody: JSON.stringify({ error: { message: HOSTILE + "A".repeat(60_000) } }),
    }],
  });
  const turn = await runTurn(quickModel(server.baseURL), ask("hi"));
  equal(
    turn.message.errorMessage,
    `${server.baseURL} answered 400 for model m: FAKE PROMPT> line2 evil${"A".repeat(277)}` +
      "… (60023 characters)",
  );
});

Deno.test("an error event mid-stream is quoted the same way", async () => {
  const error = { error: { message: "\x1b]52;c;ZWNobyBwd25lZA==\x07" + "B".repeat(5_000) } };
  await using server = await startFakeOpenAI({
    turns: [{
      contentType: "text/event-stream",
      rawBody: chunk({ role: "assistant" }) + `data: ${JSON.stringify(error)}\n\n`,
    }],
  });
  const turn = await runTurn(quickModel(server.baseURL), ask("hi"));
  equal(
    turn.message.errorMessage,
    `${server.baseURL} reported an error mid-stream (model m): ${"B".repeat(300)}` +
      "… (5000 characters)",
  );
});

Deno.test("an unknown finish_reason is quoted the same way", async () => {
  // Before, it went in as it came (3 MB in the attack).
  await using server = await startFakeOpenAI({
    turns: [{
      contentType: "text/event-stream",
      rawBody: chunk({ content: "hi" }) + chunk({}, "\x1b[2Jweird\n" + "C".repeat(3_000)),
    }],
  });
  const turn = await runTurn(quickModel(server.baseURL), ask("hi"));
  equal(
    turn.message.errorMessage,
    `${server.baseURL}: the provider withheld the answer (finish_reason: weird ` +
      `${"C".repeat(294)}… (3006 characters))`,
  );
});

Deno.test("the API key and custom header values a server echoes are replaced", async () => {
  // Before, a gateway echoing `Bearer sk-…` put the key into errorMessage.
  await using server = await startFakeOpenAI({
    turns: [(request) => ({
      status: 400,
      contentType: "application/json",
      rawBody: JSON.stringify({
        error: {
          message: `bad header: ${request.headers.get("authorization")}, ` +
            `x-api-key ${request.headers.get("x-api-key")}, ` +
            `for ${request.headers.get("x-title")}`,
        },
      }),
    })],
  });
  const model = quickModel(server.baseURL, {
    apiKey: "sk-secret-123456",
    // A header that is no credential keeps its words in messages (found by the review: every
    // custom header's words were replaced, "assistant" included).
    headers: { "x-api-key": "Key hdr-secret-7890", "X-Title": "Refactoring assistant" },
  });
  const turn = await runTurn(model, ask("hi"));
  equal(
    turn.message.errorMessage,
    `${server.baseURL} answered 400 for model m: bad header: Bearer <apiKey>, ` +
      "x-api-key <headers.x-api-key>, for Refactoring assistant",
  );
});

Deno.test("a base URL's user:password@, and one in a URL the server quotes, are left out of the message", async () => {
  await using server = await startFakeOpenAI({
    turns: [
      { status: 400, contentType: "text/plain", rawBody: "no" },
      // A password holding `@` (found by the review: what followed it was left in).
      { status: 502, contentType: "text/plain", rawBody: "via http://me:p@ss-long@proxy/v1" },
    ],
  });
  const withUser = server.baseURL.replace("http://", "http://me:pa55word-long@");
  const turn = await runTurn(quickModel(withUser), ask("hi"));
  equal(turn.message.errorMessage, `${server.baseURL} answered 400 for model m: no`);
  const quoted = await runTurn(quickModel(server.baseURL, { maxRetries: 0 }), ask("hi"));
  equal(
    quoted.message.errorMessage,
    `${server.baseURL} answered 502 for model m: via http://proxy/v1 (the server failed; retries were used up)`,
  );
});

Deno.test("a key the cut would halve, or that an escape sequence splits, is replaced all the same", async () => {
  // Both redactions are needed: the one before the quote is cut (cut first, the key's start
  // would stay), and the one over the whole line (escapes are stripped after the first).
  const key = "sk-secret-123456";
  await using server = await startFakeOpenAI({
    turns: [
      { status: 400, contentType: "text/plain", rawBody: `${"x".repeat(290)} ${key} more` },
      {
        status: 400,
        contentType: "text/plain",
        rawBody: `split ${key.slice(0, 6)}\x1b[0m${key.slice(6)}`,
      },
    ],
  });
  const model = quickModel(server.baseURL, { apiKey: key });
  const cut = await runTurn(model, ask("hi"));
  equal(
    cut.message.errorMessage,
    `${server.baseURL} answered 400 for model m: ${"x".repeat(290)} <apiKey> … (304 characters)`,
  );
  const split = await runTurn(model, ask("hi"));
  equal(split.message.errorMessage, `${server.baseURL} answered 400 for model m: split <apiKey>`);
});
