import { equal, ok } from "@std/assert";
import { McpConnection } from "@tack/agent/plugins/mcp";
import { fixtureServer } from "./mcp_fixture.ts";

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
    equal(error?.message, "MCP error -32000: Connection closed");
    const again = await connection.callTool("long_lines", { count: 1, mb: 1 });
    const first = again.content[0];
    equal(first.type === "text" && first.text, "sent 1 lines");
    equal(connection.starts, 2);
  } finally {
    await connection.close();
  }
});
