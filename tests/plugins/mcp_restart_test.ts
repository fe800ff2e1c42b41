import { toolCall } from "@tack/agent";
import mcp from "@tack/agent/plugins/mcp";
import { equal, match, notEqual } from "node:assert/strict";
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
