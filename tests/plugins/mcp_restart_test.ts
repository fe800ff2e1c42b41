import { toolCall } from "@tack/agent";
import mcp, { McpConnection } from "@tack/agent/plugins/mcp";
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { deepEqual, equal, match, notEqual, rejects } from "node:assert/strict";
import { startOversizedServer } from "../fixtures/mcp/oversized_http_server.ts";
import { exited, firstText, run, STDIO_SERVER } from "./mcp_fixture.ts";

Deno.test("mcp: a server that dies mid-call ends it with an error result and is restarted", async () => {
  const plugin = await mcp({ name: "fixture", ...STDIO_SERVER });
  const connection = plugin.servers.get("fixture")!;
  try {
    const before = firstText((await run(plugin, [toolCall("fixture_pid", {})])).results[0]);
    const { results } = await run(plugin, [toolCall("fixture_crash", {})]);
    equal(results[0].isError, true);
    equal(
      firstText(results[0]),
      'MCP server "fixture" closed the connection during tool "crash"; it is restarted on the next call',
    );
    equal(connection.connected, false);
    const after = await run(plugin, [toolCall("fixture_pid", {})]);
    equal(after.results[0].isError, false);
    notEqual(firstText(after.results[0]), before);
    equal(connection.starts, 2);
    equal(await exited(Number(before)), true);
  } finally {
    await plugin.dispose();
  }
});

Deno.test("mcp: a hanging call is bounded by the call's timeout and cancelled on the server", async () => {
  const plugin = await mcp({ name: "fixture", ...STDIO_SERVER });
  try {
    const { results } = await run(plugin, [toolCall("fixture_sleep", { ms: 30_000 })], {
      toolTimeoutMs: 200,
    });
    equal(results[0].isError, true);
    match(firstText(results[0])!, /^Tool fixture_sleep timed out after 200 ms/);
    // The server got notifications/cancelled, still answers, and was not restarted.
    const after = await run(plugin, [toolCall("fixture_cancelled", {})]);
    equal(firstText(after.results[0]), "1");
    equal(plugin.servers.get("fixture")?.starts, 1);
  } finally {
    await plugin.dispose();
  }
});

Deno.test("mcp: aborting the run cancels the MCP request", async () => {
  const plugin = await mcp({ name: "fixture", ...STDIO_SERVER });
  try {
    const { results } = await run(
      plugin,
      [toolCall("fixture_sleep", { ms: 30_000 })],
      {},
      (agent) => {
        agent.subscribe((event) => {
          if (event.type === "tool_execution_start") setTimeout(() => agent.abort(), 50);
        });
      },
    );
    equal(results[0].isError, true);
    match(firstText(results[0])!, /aborted/);
    const after = await run(plugin, [toolCall("fixture_cancelled", {})]);
    equal(firstText(after.results[0]), "1");
  } finally {
    await plugin.dispose();
  }
});

Deno.test("mcp: a server that stops answering is restarted after the call times out", async () => {
  const plugin = await mcp({ name: "fixture", ...STDIO_SERVER, pingTimeoutMs: 200 });
  const connection = plugin.servers.get("fixture")!;
  try {
    const before = firstText((await run(plugin, [toolCall("fixture_pid", {})])).results[0]);
    const { results } = await run(plugin, [toolCall("fixture_freeze", {})], {
      toolTimeoutMs: 300,
    });
    equal(results[0].isError, true);
    match(firstText(results[0])!, /^Tool fixture_freeze timed out after 300 ms/);
    // The next call waits for the unanswered ping, then gets a fresh server.
    const after = await run(plugin, [toolCall("fixture_pid", {})]);
    equal(after.results[0].isError, false);
    notEqual(firstText(after.results[0]), before);
    equal(connection.starts, 2);
    equal(await exited(Number(before)), true);
  } finally {
    await plugin.dispose();
  }
});

Deno.test("a connection ended while a ping checks it is still retired: the next call reconnects, not failing with the old error", async () => {
  // The call times out; the server holds the ping that follows until the call's late answer (over
  // 10 MB) has ended the connection, then answers it. The ping's timeout is never reached.
  const server = startOversizedServer(false);
  const connection = new McpConnection("oversized", { url: server.url }, { pingTimeoutMs: 60_000 });
  try {
    await rejects(connection.callTool("big", { mb: 32, late: true }, { timeoutMs: 100 }), {
      code: ErrorCode.RequestTimeout,
    });
    // Waits for the check, then runs on a fresh connection.
    const fits = await connection.callTool("big", { mb: 1 });
    const first = fits.content[0];
    const unknown = await connection.callTool("nope", {}).then(
      () => "answered",
      (error: Error) => error.message,
    );
    deepEqual(
      [server.pings, first.type === "text" && first.text.length, connection.starts, unknown],
      [1, 1024 * 1024, 2, "MCP error -32602: Unknown tool: nope"],
    );
  } finally {
    await connection.close();
    await server.close();
  }
});
