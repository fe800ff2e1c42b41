/**
 * A redirect is followed within the origin only: following it elsewhere would send the API
 * key, custom headers and the transcript to wherever the server pointed.
 */

import { deepEqual, equal } from "node:assert/strict";

const REFUSED = "not followed (another origin would get the API key and the transcript, and " +
  "only 5 redirects are followed; set baseURL to where it leads if you trust it)";
const ANSWER = 'data: {"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":null}]}\n\n' +
  'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n';
import { ask, quickModel, runTurn } from "./stream_helpers.ts";

/** A loopback server that records the paths and headers it was sent. */
function recordingServer(answer: (request: Request) => Response) {
  const seen: { path: string; apiKey: string | null; method: string; body: string }[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const body = await request.text();
    seen.push({
      path: new URL(request.url).pathname,
      apiKey: request.headers.get("api-key"),
      method: request.method,
      body: body.slice(0, 20),
    });
    return answer(request);
  });
  return { seen, origin: `http://127.0.0.1:${server.addr.port}`, server };
}

Deno.test("a redirect to another origin is reported, and the other server receives nothing", async () => {
  // Before, fetch followed it (redirect: "follow"), re-sending api-key and the body there.
  const other = recordingServer(() => new Response("stolen"));
  const base = recordingServer((request) =>
    new Response(null, {
      status: 307,
      headers: { location: `${other.origin}${new URL(request.url).pathname}` },
    })
  );
  try {
    const model = quickModel(`${base.origin}/v1`, { headers: { "api-key": "custom-secret" } });
    const turn = await runTurn(model, ask("hi"));
    equal(
      turn.message.errorMessage,
      `${base.origin}/v1 answered 307 for model m: a redirect to ` +
        `${other.origin}/v1/chat/completions, ${REFUSED}`,
    );
    deepEqual(other.seen, []);
    equal(base.seen.length, 1); // not retried
  } finally {
    await other.server.shutdown();
    await base.server.shutdown();
  }
});

Deno.test("a redirect within the origin is followed with the same request, as fetch follows it", async () => {
  // Found by the review: refusing every redirect broke a server that moved its path (a 308
  // on the same origin), which fetch had followed before.
  const base = recordingServer((request) =>
    new URL(request.url).pathname === "/old/chat/completions"
      ? new Response(null, { status: 308, headers: { location: "/v1/chat/completions" } })
      : new Response(ANSWER, { headers: { "content-type": "text/event-stream" } })
  );
  try {
    const model = quickModel(`${base.origin}/old`, { api: "chat", headers: { "api-key": "k" } });
    const turn = await runTurn(model, ask("hi"));
    equal(turn.message.errorMessage, undefined);
    deepEqual(turn.message.content, [{ type: "text", text: "ok" }]);
    deepEqual(base.seen.map(({ path, method, apiKey }) => [path, method, apiKey]), [
      ["/old/chat/completions", "POST", "k"],
      ["/v1/chat/completions", "POST", "k"],
    ]);
    equal(base.seen[1].body, base.seen[0].body);
  } finally {
    await base.server.shutdown();
  }
});

Deno.test("redirects within the origin are followed 5 times, then reported", async () => {
  const base = recordingServer(() =>
    new Response(null, { status: 308, headers: { location: "/v2/chat/completions" } })
  );
  try {
    const turn = await runTurn(quickModel(`${base.origin}/v1`, { api: "chat" }), ask("hi"));
    equal(
      turn.message.errorMessage,
      `${base.origin}/v1 answered 308 for model m: a redirect to ` +
        `${base.origin}/v2/chat/completions, ${REFUSED}`,
    );
    equal(base.seen.length, 6);
  } finally {
    await base.server.shutdown();
  }
});
