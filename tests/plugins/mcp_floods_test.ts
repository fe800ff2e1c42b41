import { equal, ok } from "@std/assert";
import { mcp, McpConnection } from "@tack/agent/plugins/mcp";
import { fixtureServer } from "./mcp_fixture.ts";
import { startOversizedServer } from "../fixtures/mcp/oversized_http_server.ts";
import { boundedFetch } from "../../plugins/mcp/bounded_body.ts";

/** Counts the ticks of a 10 ms interval while `work` runs: a stalled loop misses them. */
async function ticksDuring<T>(
  work: () => Promise<T>,
): Promise<{ value: T; ticks: number; ms: number }> {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 10);
  const started = performance.now();
  try {
    const value = await work();
    return { value, ticks, ms: performance.now() - started };
  } finally {
    clearInterval(timer);
  }
}

Deno.test("a server's long lines are read in linear time: the host's loop keeps running", async () => {
  const connection = new McpConnection("flooding", fixtureServer("flooding_server.ts"));
  try {
    await connection.listTools();
    // Five lines of 9 MB: read as a growing string, searched from its start at each chunk, they
    // held the loop ~2.4 s (15 ticks of 246); each line alone ~0.45 s.
    const { value, ticks, ms } = await ticksDuring(() =>
      connection.callTool("long_lines", { count: 5, mb: 9 })
    );
    const first = value.content[0];
    equal(first.type === "text" && first.text, "sent 5 lines");
    ok(ms < 1_500, `the call took ${Math.round(ms)} ms`);
    ok(ticks >= ms / 10 / 4, `${ticks} ticks in ${Math.round(ms)} ms`);
  } finally {
    await connection.close();
  }
});

Deno.test("a line over 10 MB ends the server, never held whole; the call fails and the next one restarts it", async () => {
  const connection = new McpConnection("flooding", fixtureServer("flooding_server.ts"));
  try {
    const error = await connection.callTool("long_lines", { count: 1, mb: 11 }).then(
      () => undefined,
      (error: Error) => error,
    );
    equal(error?.message, "the server sent a message over 10 MB");
    const again = await connection.callTool("long_lines", { count: 1, mb: 1 });
    const first = again.content[0];
    equal(first.type === "text" && first.text, "sent 1 lines");
    equal(connection.starts, 2);
  } finally {
    await connection.close();
  }
});

for (const sse of [false, true]) {
  const what = sse ? "one event of an event stream" : "a JSON body";
  Deno.test(`an HTTP server's message over 10 MB (${what}) fails the call, never held whole`, async () => {
    // The SDK reads a body whole: an endless JSON body or one endless event grew the host by
    // ~400 MB a second (3.4 GB in 8 s) until the call's timeout, or until it ran out of memory.
    const server = startOversizedServer(sse);
    const plugin = await mcp({ name: "oversized", url: server.url });
    try {
      const [tool] = plugin.tools;
      const error = await Promise.resolve(tool.execute({ mb: 24 }, {
        toolCallId: "1",
        signal: new AbortController().signal,
      })).then(() => undefined, (error: Error) => error);
      equal(
        error?.message,
        'MCP tool "big" on server "oversized" failed: the server sent a message over 10 MB; ' +
          "it is reconnected on the next call",
      );
      const fits = await tool.execute({ mb: 1 }, {
        toolCallId: "2",
        signal: new AbortController().signal,
      });
      const first = fits.content[0];
      equal(first.type === "text" && first.text.length, 1024 * 1024);
    } finally {
      await plugin.dispose();
      await server.close();
    }
  });
}

Deno.test("an event stream is bounded event by event: many small events pass, one big one fails", async () => {
  const event = (size: number) => `data: ${"x".repeat(size)}\r\n\r\n`;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    // The small events come in pieces, each cut in the middle of its blank line.
    const pieces = new URL(request.url).pathname === "/small"
      ? Array.from({ length: 100 }, () => [event(40).slice(0, -2), "\r\n"]).flat()
      : [event(200)];
    const body = ReadableStream.from(pieces).pipeThrough(new TextEncoderStream());
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  });
  try {
    const failures: string[] = [];
    const fetch = boundedFetch((error) => failures.push(error.message), 100);
    const base = `http://127.0.0.1:${server.addr.port}`;
    equal((await (await fetch(`${base}/small`)).text()).length, 5_000);
    await (await fetch(`${base}/big`)).text().catch(() => {});
    equal(failures.length, 1);
  } finally {
    await server.shutdown();
  }
});
