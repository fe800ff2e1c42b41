// Review: 202 Accepted edge cases for answerCheckingFetch.
import { toolCall } from "@tack/agent";
import mcp from "@tack/agent/plugins/mcp";
import { deepEqual } from "node:assert/strict";
import { startOneToolServer } from "../fixtures/mcp/one_tool_http_server.ts";
import { firstText, run } from "./mcp_fixture.ts";

Deno.test("review: a 202 Accepted to a request fails it at once, whatever its content type or body", async () => {
  const replies: Record<string, (id: number | string) => Response> = {
    // A 202 labelled as an event stream: passed to the SDK unchanged, which checks 202 first.
    sse202: () =>
      new Response(null, { status: 202, headers: { "content-type": "text/event-stream" } }),
    // A 202 whose body never ends: the wrapper waits for it before failing the call.
    hanging202: () =>
      new Response(
        new ReadableStream({
          start(c) {
            c.enqueue(new TextEncoder().encode("x"));
          },
        }),
        {
          status: 202,
          headers: { "content-type": "text/plain" },
        },
      ),
  };
  const server = startOneToolServer(
    "echo",
    ({ id, params }) => replies[String(params.arguments?.reply)](id),
  );
  const plugin = await mcp({ name: "web", url: `http://127.0.0.1:${server.addr.port}/mcp` });
  try {
    const results = [];
    for (const reply of Object.keys(replies)) {
      const started = performance.now();
      const ran = await run(plugin, [toolCall("web_echo", { reply })], { toolTimeoutMs: 2_000 });
      results.push([
        ...ran.results.map((r) => [r.isError, firstText(r)]),
        Math.round(performance.now() - started) < 1_000,
      ]);
    }
    deepEqual(results.map((r) => r[1]), [true, true], JSON.stringify(results));
  } finally {
    await plugin.dispose();
    await server.shutdown();
  }
});
