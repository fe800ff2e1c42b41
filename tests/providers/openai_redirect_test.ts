/**
 * A redirect is reported, not followed: following it would send the API key, custom
 * headers and the transcript to wherever the server pointed.
 */

import { deepEqual, equal } from "node:assert/strict";
import { ask, quickModel, runTurn } from "./stream_helpers.ts";

/** A loopback server that records the paths and headers it was sent. */
function recordingServer(answer: (request: Request) => Response) {
  const seen: { path: string; apiKey: string | null }[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    await request.body?.cancel();
    seen.push({ path: new URL(request.url).pathname, apiKey: request.headers.get("api-key") });
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
        `${other.origin}/v1/chat/completions, not followed (it would carry the API key and the ` +
        "transcript there; set baseURL to where it leads if you trust it)",
    );
    deepEqual(other.seen, []);
    deepEqual(base.seen, [{ path: "/v1/chat/completions", apiKey: "custom-secret" }]); // not retried
  } finally {
    await other.server.shutdown();
    await base.server.shutdown();
  }
});

Deno.test("a relative redirect names the absolute URL it points to", async () => {
  const base = recordingServer(() =>
    new Response(null, { status: 308, headers: { location: "/v2/chat/completions" } })
  );
  try {
    const turn = await runTurn(quickModel(`${base.origin}/v1`, { api: "chat" }), ask("hi"));
    equal(
      turn.message.errorMessage,
      `${base.origin}/v1 answered 308 for model m: a redirect to ` +
        `${base.origin}/v2/chat/completions, not followed (it would carry the API key and the ` +
        "transcript there; set baseURL to where it leads if you trust it)",
    );
    equal(base.seen.length, 1);
  } finally {
    await base.server.shutdown();
  }
});
