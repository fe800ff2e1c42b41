import { toolCall } from "@tack/agent";
import mcp, { McpConnection } from "@tack/agent/plugins/mcp";
import { deepEqual, equal, rejects } from "node:assert/strict";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { startUnansweringServer } from "../fixtures/mcp/unanswering_http_server.ts";
import { trackRequests } from "../../plugins/mcp/requests_in_flight.ts";
import { firstText, fixtureServer, run } from "./mcp_fixture.ts";

// Each message the plugin drops was parsed and checked first, ~3 µs, and without a bound (by
// hand: scripts/measure_mcp_non_answers.ts). The floods below send well within a second what
// the host reads in a few tens of ms; how fast is not asserted.

const FLOODING = fixtureServer("flooding_server.ts");

/** The error result of a call on a server that flooded its connection. */
function flooded(tool: string, server = "flooding", most = 10_000): [boolean, string] {
  return [
    true,
    `MCP tool "${tool}" on server "${server}" failed: the server sent more than ${most} ` +
    "messages a second that answer nothing; it is reconnected on the next call",
  ];
}

const KINDS: Record<string, string> = {
  method: "notifications of a method no one handles",
  token: "progress notifications for a token never issued",
  stale: "progress notifications for a call that ended",
  id: "responses with ids no request has",
  ping: "requests (pings, each answered)",
};

for (const [kind, what] of Object.entries(KINDS)) {
  // A bound of 999 and one write of 1,000 lines: a flood a loaded machine still reads within
  // a second (10,001 answered pings took over one on a busy CI machine: a rate, not a flood).
  Deno.test(`more ${what} in a second than the bound end the server; the next call restarts it`, async () => {
    const plugin = await mcp({ name: "flooding", ...FLOODING, maxNonAnswersPerSecond: 999 });
    try {
      // A call that ended, whose token the stale progress carries.
      const ended = await run(plugin, [toolCall("flooding_progress", { count: 1 })]);
      equal(firstText(ended.results[0]), "sent 1 progress notifications");
      const { results } = await run(plugin, [
        toolCall("flooding_stray", { kind, count: 1_000 }),
      ]);
      deepEqual([results[0].isError, firstText(results[0])], flooded("stray", "flooding", 999));
      const after = await run(plugin, [toolCall("flooding_stray", { kind, count: 1 })]);
      equal(firstText(after.results[0]), `sent 1 ${kind} messages`);
      equal(plugin.servers.get("flooding")?.starts, 2);
    } finally {
      await plugin.dispose();
    }
  });
}

Deno.test("10,000 messages that answer nothing are allowed: the call is answered and the connection stays", async () => {
  const plugin = await mcp({ name: "flooding", ...FLOODING });
  try {
    const { results } = await run(plugin, [
      toolCall("flooding_stray", { kind: "method", count: 10_000 }),
    ]);
    equal(firstText(results[0]), "sent 10000 method messages");
    // Answers are never counted: a call answered after the 10,000 is not one too many.
    const after = await run(plugin, [toolCall("flooding_stray", { kind: "method", count: 0 })]);
    equal(firstText(after.results[0]), "sent 0 method messages");
    equal(plugin.servers.get("flooding")?.starts, 1);
  } finally {
    await plugin.dispose();
  }
});

Deno.test("progress spread over calls counts together: three calls of 4,000 each end the server, all three", async () => {
  // Each call is far under its own bound (100,000); the calls wait, so all three are in flight
  // when the 10,001st arrives. The timeout only bounds how long the test takes without the fix.
  const plugin = await mcp({ name: "flooding", ...FLOODING, timeoutMs: 20_000 });
  try {
    const calls = [1, 2, 3].map(() => toolCall("flooding_progress", { count: 4_000, wait: true }));
    const { results } = await run(plugin, calls);
    deepEqual(
      results.map((result) => [result.isError, firstText(result)]),
      [1, 2, 3].map(() => flooded("progress")),
    );
    const after = await run(plugin, [toolCall("flooding_progress", { count: 1 })]);
    equal(firstText(after.results[0]), "sent 1 progress notifications");
    equal(plugin.servers.get("flooding")?.starts, 2);
  } finally {
    await plugin.dispose();
  }
});

Deno.test("maxNonAnswersPerSecond sets the bound: 100 pass, 101 end the server", async () => {
  const plugin = await mcp({ name: "flooding", ...FLOODING, maxNonAnswersPerSecond: 100 });
  try {
    const passing = await run(plugin, [toolCall("flooding_stray", { count: 100 })]);
    equal(firstText(passing.results[0]), "sent 100 method messages");
    equal(plugin.servers.get("flooding")?.starts, 1);
    // In the window of the 100 or in a new one, the 101st of this call is one too many.
    const { results } = await run(plugin, [toolCall("flooding_stray", { count: 101 })]);
    deepEqual([results[0].isError, firstText(results[0])], flooded("stray", "flooding", 100));
    const after = await run(plugin, [toolCall("flooding_stray", { count: 0 })]);
    equal(firstText(after.results[0]), "sent 0 method messages");
    equal(plugin.servers.get("flooding")?.starts, 2);
  } finally {
    await plugin.dispose();
  }
});

Deno.test("more than 10,000 messages that answer nothing before initialize is answered fail the connection; 10,000 pass", async () => {
  // Before the plugin had its own watch on them (it takes over from the SDK once connected),
  // they went to the SDK unbounded, for up to connectTimeoutMs (30 s) at each start.
  const flooding = new McpConnection("flooding", fixtureServer("flooding_server.ts", "10001"));
  try {
    await rejects(flooding.listTools(), {
      message: 'Cannot connect to MCP server "flooding": the server sent more than 10000 ' +
        "messages a second that answer nothing",
    });
  } finally {
    await flooding.close();
  }
  const passing = new McpConnection("flooding", fixtureServer("flooding_server.ts", "10000"));
  try {
    deepEqual((await passing.listTools()).map((tool) => tool.name), [
      "long_lines",
      "progress",
      "stray",
    ]);
  } finally {
    await passing.close();
  }
});

Deno.test("an HTTP server's event stream of more than 10,000 messages that answer nothing ends its connection; the next call reconnects", async () => {
  const server = startUnansweringServer();
  const plugin = await mcp({ name: "web", url: server.url, timeoutMs: 20_000 });
  try {
    const { results } = await run(plugin, [toolCall("web_stray", { count: 10_001 })]);
    deepEqual([results[0].isError, firstText(results[0])], flooded("stray", "web"));
    const after = await run(plugin, [toolCall("web_stray", { count: 10_000 })]);
    equal(firstText(after.results[0]), "sent 10000");
    equal(plugin.servers.get("web")?.starts, 2);
  } finally {
    await plugin.dispose();
    await server.close();
  }
});

Deno.test("a request is in flight until it is answered, cancelled, or fails to send; a later answer answers nothing", async () => {
  // The SDK's transport interface, as a client sees it: sending request 4 fails.
  const transport = {
    send: (message: { id?: unknown }) =>
      message.id === 4 ? Promise.reject(new Error("broken pipe")) : Promise.resolve(),
  } as unknown as Transport;
  const requests = trackRequests(transport);
  const response = (id: unknown) => ({ jsonrpc: "2.0" as const, id: id as number, result: {} });
  for (const id of [1, 2, 3]) await transport.send({ jsonrpc: "2.0", id, method: "ping" });
  await rejects(transport.send({ jsonrpc: "2.0", id: 4, method: "ping" }), {
    message: "broken pipe",
  });
  await transport.send({
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: 2, reason: "timed out" },
  });
  deepEqual(
    [response(1), response(1), response(2), response("3"), response(4), response(5)].map((
      message,
    ) => requests.answers(message)),
    [true, false, false, true, false, false],
  );
  await transport.send({ jsonrpc: "2.0", id: 6, method: "ping" });
  await transport.send({ jsonrpc: "2.0", id: 7, method: "ping" });
  deepEqual(requests.drain(), [6, 7]);
  equal(requests.answers(response(6)), false);
});
