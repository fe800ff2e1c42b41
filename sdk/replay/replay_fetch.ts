/**
 * `replayFetch`: a `fetch` that answers a provider's requests from a cassette, offline.
 *
 * @module
 */

import { type CassetteLine, firstDifference, parseCassette, redactSecrets } from "./cassette.ts";

function short(value: unknown): string {
  const text = JSON.stringify(value) ?? "undefined";
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}

function diverged(message: string): Response {
  return new Response(
    JSON.stringify({ error: { message, type: "replay_divergence", code: "replay_divergence" } }),
    { status: 400, headers: { "content-type": "application/json" } },
  );
}

/**
 * A `fetch` for a provider's `fetch` option that plays the cassette's HTTP responses in
 * order. Each request's method, path and (redacted) JSON body must equal the recorded
 * one; otherwise it answers 400 with an OpenAI-style error whose message names the request
 * and the field (`Replay diverged at HTTP request 1: field messages[0].content: …`), which
 * the provider reports as the turn's error.
 *
 * @param cassette JSONL text or parsed lines.
 * @returns The fetch.
 *
 * @example Past the cassette
 * ```ts
 * import { replayFetch } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * const response = await replayFetch("")("http://127.0.0.1/v1/chat/completions", { method: "POST", body: "{}" });
 * equal(response.status, 400);
 * ```
 */
export function replayFetch(cassette: string | readonly CassetteLine[]): typeof fetch {
  const lines = typeof cassette === "string" ? parseCassette(cassette) : cassette;
  const requests = lines.filter((l) => l.type === "http_request");
  const responses = new Map<number, Extract<CassetteLine, { type: "http_response" }>>();
  for (const line of lines) if (line.type === "http_response") responses.set(line.seq, line);
  let next = 0;
  return async (input, init) => {
    const request = new Request(input, init);
    const index = next++;
    const recorded = requests[index];
    if (!recorded || recorded.type !== "http_request") {
      return diverged(
        `Replay ran past the cassette: it has ${requests.length} HTTP requests, and this is request ${index}`,
      );
    }
    const text = request.body ? await request.text() : undefined;
    let body: unknown = text;
    try {
      body = text === undefined ? undefined : JSON.parse(text);
    } catch { /* not JSON: compared as text */ }
    const actual = {
      method: request.method,
      path: new URL(request.url).pathname,
      body: redactSecrets(body),
    };
    const expected = {
      method: recorded.method,
      path: new URL(recorded.url).pathname,
      body: recorded.body,
    };
    const found = firstDifference(expected, actual);
    if (found) {
      return diverged(
        `Replay diverged at HTTP request ${index}: field ${found.path}: recorded ` +
          `${short(found.recorded)}, got ${short(found.actual)}`,
      );
    }
    const response = responses.get(recorded.seq);
    if (!response) {
      return diverged(`Replay cannot answer HTTP request ${index}: its response was not recorded`);
    }
    return new Response(response.body, { status: response.status, headers: response.headers });
  };
}
