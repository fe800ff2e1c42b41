import { equal } from "@std/assert";
import { mcp, McpConnection } from "@tack/agent/plugins/mcp";
import { fixtureServer } from "./mcp_fixture.ts";
import { startOversizedServer } from "../fixtures/mcp/oversized_http_server.ts";
import { boundedFetch } from "../../plugins/mcp/bounded_body.ts";

Deno.test("a server's 9 MB lines are read through and the answer after them arrives", async () => {
  // How fast they are read (in bytes, each newline found in the chunk it came in) is measured
  // by hand (docs/mcp.md), not asserted here: timing in a test fails under load.
  const connection = new McpConnection("flooding", fixtureServer("flooding_server.ts"));
  try {
    await connection.listTools();
    const value = await connection.callTool("long_lines", { count: 5, mb: 9 });
    const first = value.content[0];
    equal(first.type === "text" && first.text, "sent 5 lines");
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
