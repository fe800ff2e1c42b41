import { definePlugin, toolCall } from "@tack/agent";
import mcp, { type McpCallDetails } from "@tack/agent/plugins/mcp";
import { deepEqual, equal } from "node:assert/strict";
import { PIXEL_PNG } from "../fixtures/mcp/tools.ts";
import { exited, firstText, run, STDIO_SERVER } from "./mcp_fixture.ts";

Deno.test("mcp lists the server's tools as prefixed, sanitized, unique Tack tools", async () => {
  const plugin = await mcp({ name: "fixture", ...STDIO_SERVER });
  try {
    equal(plugin.name, "fixture");
    deepEqual(plugin.tools.map((tool) => tool.name), [
      "fixture_echo",
      "fixture_add",
      "fixture_pixel",
      "fixture_fail",
      "fixture_write_note",
      "fixture_fetch_page",
      "fixture_fetch_page_2",
      "fixture_pid",
      "fixture_sleep",
      "fixture_cancelled",
      "fixture_count",
      "fixture_freeze",
      "fixture_crash",
    ]);
    const byName = new Map(plugin.tools.map((tool) => [tool.name, tool]));
    deepEqual(byName.get("fixture_echo")?.effects, ["read"]);
    deepEqual(byName.get("fixture_write_note")?.effects, ["write"]);
    deepEqual(byName.get("fixture_fetch_page")?.effects, ["write", "net"]); // no annotations
    deepEqual(byName.get("fixture_fetch_page_2")?.effects, ["read", "net"]);
    equal(byName.get("fixture_add")?.description, "Adds two numbers");
    deepEqual(byName.get("fixture_add")?.parameters, {
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
      $schema: "http://json-schema.org/draft-07/schema#",
    });
    deepEqual(plugin.permissions, {
      run: [STDIO_SERVER.command],
      env: ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"],
    });
    equal(plugin.servers.get("fixture")?.starts, 1);
  } finally {
    await plugin.dispose();
  }
});

Deno.test("mcp calls run through the agent: text, structured content, images", async () => {
  const plugin = await mcp({ name: "fixture", ...STDIO_SERVER });
  try {
    const { results } = await run(plugin, [
      toolCall("fixture_echo", { text: "hi" }),
      toolCall("fixture_add", { a: 2, b: "3" }), // coerced by the core, as for any tool
      toolCall("fixture_pixel", {}),
      toolCall("fixture_fetch_page", { url: "https://example.org" }),
      toolCall("fixture_fetch_page_2", { url: "https://example.org" }),
    ]);
    deepEqual(results.map((r) => r.isError), [false, false, false, false, false]);
    equal(firstText(results[0]), "echo: hi");
    deepEqual(results[0].details, { server: "fixture", tool: "echo" });
    equal(firstText(results[1]), "5");
    deepEqual(results[1].details, {
      server: "fixture",
      tool: "add",
      structuredContent: { sum: 5 },
    });
    deepEqual(results[2].content, [
      { type: "text", text: "a pixel:" },
      { type: "image", data: PIXEL_PNG, mimeType: "image/png" },
      { type: "text", text: "[resource pixel.png: file:///pixel.png]" },
      { type: "text", text: "[resource file:///notes.txt]\nsome notes" },
      { type: "text", text: "[audio (audio/wav, 3 bytes) not shown]" },
    ]);
    equal(firstText(results[3]), "fetched https://example.org");
    equal(firstText(results[4]), "fetched https://example.org again");
  } finally {
    await plugin.dispose();
  }
});

Deno.test("mcp: an isError result is an error result with the server's text", async () => {
  const plugin = await mcp({ name: "fixture", ...STDIO_SERVER });
  try {
    const { results } = await run(plugin, [toolCall("fixture_fail", {})]);
    equal(results[0].isError, true);
    deepEqual(results[0].content, [{ type: "text", text: "the server says no" }]);
    deepEqual(results[0].details, { server: "fixture", tool: "fail" });
  } finally {
    await plugin.dispose();
  }
});

Deno.test("mcp: invalid arguments are rejected by the server's schema before the call", async () => {
  const plugin = await mcp({ name: "fixture", ...STDIO_SERVER });
  try {
    const { results } = await run(plugin, [toolCall("fixture_add", { a: "two", b: 1 })]);
    equal(results[0].isError, true);
    equal(
      firstText(results[0]),
      'Invalid arguments for tool "fixture_add":\n  - a: must be number (received "two")\n' +
        'Received arguments: {"a":"two","b":1}',
    );
  } finally {
    await plugin.dispose();
  }
});

Deno.test("mcp calls pass through hooks and policies like any other call", async () => {
  const plugin = await mcp({ name: "fixture", ...STDIO_SERVER });
  const seen: McpCallDetails[] = [];
  const policy = definePlugin({
    name: "no-writes",
    beforeToolCall: ({ tool }) =>
      tool.effects?.includes("write") ? { block: true, reason: `${tool.name} writes` } : undefined,
    afterToolCall: ({ result }) => {
      seen.push(result.details as McpCallDetails);
      return { content: [{ type: "text", text: "(checked) " + firstText(result as never) }] };
    },
  });
  try {
    const { results } = await run(plugin, [
      toolCall("fixture_write_note", { note: "x" }),
      toolCall("fixture_echo", { text: "ok" }),
    ], { plugins: [policy] });
    equal(results[0].isError, true);
    equal(firstText(results[0]), "fixture_write_note writes");
    equal(results[1].isError, false);
    equal(firstText(results[1]), "(checked) echo: ok");
    deepEqual(seen, [{ server: "fixture", tool: "echo" }]);
  } finally {
    await plugin.dispose();
  }
});

for (const progressIntervalMs of [0, 60_000]) {
  Deno.test(`mcp: progress notifications become tool_execution_update events (progressIntervalMs ${progressIntervalMs})`, async () => {
    const plugin = await mcp({ name: "fixture", ...STDIO_SERVER, progressIntervalMs });
    try {
      const { results, events } = await run(plugin, [toolCall("fixture_count", {})]);
      equal(firstText(results[0]), "counted");
      const updates = events.flatMap((event) =>
        event.type === "tool_execution_update" && event.partialResult.content[0]?.type === "text"
          ? [event.partialResult.content[0].text]
          : []
      );
      // Every one, or the first at once and the latest (kept back) before the result.
      deepEqual(
        updates,
        progressIntervalMs === 0
          ? ["progress 1/3", "progress 2/3", "done"]
          : ["progress 1/3", "done"],
      );
    } finally {
      await plugin.dispose();
    }
  });
}

Deno.test("mcp: parallel calls share one server process", async () => {
  const plugin = await mcp({ name: "fixture", ...STDIO_SERVER });
  try {
    const { results } = await run(plugin, [
      toolCall("fixture_sleep", { ms: 50 }),
      toolCall("fixture_echo", { text: "a" }),
      toolCall("fixture_pid", {}),
      toolCall("fixture_pid", {}),
    ]);
    deepEqual(results.map(firstText).slice(0, 2), ["slept 50 ms", "echo: a"]);
    equal(firstText(results[2]), firstText(results[3]));
    equal(plugin.servers.get("fixture")?.starts, 1);
  } finally {
    await plugin.dispose();
  }
});

Deno.test("mcp options: toolPrefix, tools and effects", async () => {
  const plugin = await mcp({
    ...STDIO_SERVER,
    toolPrefix: "",
    tools: ["write_note", "echo"],
    effects: { write_note: ["read"] },
    timeoutMs: 5_000,
  });
  try {
    equal(plugin.name, "mcp");
    deepEqual(plugin.tools.map((tool) => [tool.name, tool.effects, tool.timeoutMs]), [
      ["echo", ["read"], 5_000],
      ["write_note", ["read"], 5_000],
    ]);
    const { results } = await run(plugin, [toolCall("write_note", { note: "abc" })]);
    equal(firstText(results[0]), "wrote 3 chars");
  } finally {
    await plugin.dispose();
  }
});

Deno.test("mcp: dispose stops the server; later calls are error results", async () => {
  const plugin = await mcp({ name: "fixture", ...STDIO_SERVER });
  const connection = plugin.servers.get("fixture")!;
  equal(connection.connected, true);
  const pid = Number(firstText((await run(plugin, [toolCall("fixture_pid", {})])).results[0]));
  await plugin.dispose();
  equal(connection.connected, false);
  equal(await exited(pid), true);
  await plugin.dispose(); // idempotent
  const { results } = await run(plugin, [toolCall("fixture_echo", { text: "late" })]);
  equal(results[0].isError, true);
  equal(
    firstText(results[0]),
    'Cannot connect to MCP server "fixture": the plugin was disposed',
  );
  equal(connection.starts, 1);
});
