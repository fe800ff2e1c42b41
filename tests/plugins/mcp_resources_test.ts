import { toolCall } from "@tack/agent";
import mcp, { McpConnection, type McpStdioServer } from "@tack/agent/plugins/mcp";
import { deepEqual, equal, match } from "node:assert/strict";
import { everythingServer, firstText, fixtureServer, run, STDIO_SERVER } from "./mcp_fixture.ts";

/** The reference server of the MCP project, from npm, run offline from Deno's cache. */
const EVERYTHING: McpStdioServer = await everythingServer();

const SERVER_TOOLS = ["list_resources", "read_resource", "list_prompts", "get_prompt"];

Deno.test("mcp: a server advertising resources and prompts gets tools for them", async () => {
  const plugin = await mcp({ name: "everything", ...EVERYTHING, tools: ["echo"] });
  try {
    deepEqual(
      plugin.tools.map((tool) => [tool.name, tool.effects]),
      [
        ["everything_echo", ["read"]],
        ...SERVER_TOOLS.map((name) => [`everything_${name}`, ["read"]]),
      ],
    );
  } finally {
    await plugin.dispose();
  }
  // The fixture advertises neither: it gets no such tools.
  const fixture = await mcp({ name: "fixture", ...STDIO_SERVER });
  await fixture.dispose();
  equal(
    fixture.tools.some((tool) => /_(list|read|get)_(resources?|prompts?)$/.test(tool.name)),
    false,
  );
  // And they can be turned off.
  const off = await mcp({
    name: "everything",
    ...EVERYTHING,
    tools: ["echo"],
    resources: false,
    prompts: false,
  });
  await off.dispose();
  deepEqual(off.tools.map((tool) => tool.name), ["everything_echo"]);
});

Deno.test("mcp resource tools: list, read text and a text blob, an unknown URI", async () => {
  const plugin = await mcp({ name: "everything", ...EVERYTHING, tools: [] });
  try {
    const { results } = await run(plugin, [
      toolCall("everything_list_resources", {}),
      toolCall("everything_read_resource", { uri: "demo://resource/dynamic/text/1" }),
      toolCall("everything_read_resource", { uri: "demo://resource/dynamic/blob/2" }),
      toolCall("everything_read_resource", { uri: "demo://nope" }),
      toolCall("everything_read_resource", {}),
    ]);
    const list = firstText(results[0])!;
    match(list, /^Resources of MCP server "everything":\n/);
    match(
      list,
      /\n- demo:\/\/resource\/static\/document\/architecture\.md: architecture\.md \(text\/markdown\) — /,
    );
    match(
      list,
      /\nTemplates \(put values in the \{braces\} to make a URI\):\n- demo:\/\/resource\/dynamic\/text\/\{resourceId\}: /,
    );
    match(
      firstText(results[1])!,
      /^\[resource demo:\/\/resource\/dynamic\/text\/1\]\nResource 1: /,
    );
    equal(results[1].isError, false);
    // A blob the server labels text/plain is decoded for the model.
    match(
      firstText(results[2])!,
      /^\[resource demo:\/\/resource\/dynamic\/blob\/2\]\nResource 2: /,
    );
    equal(results[3].isError, true);
    equal(
      firstText(results[3]),
      'MCP server "everything" rejected request "resources/read demo://nope": ' +
        "MCP error -32602: Resource demo://nope not found",
    );
    deepEqual(results[3].details, {
      server: "everything",
      tool: "resources/read",
      uri: "demo://nope",
      code: -32602,
    });
    equal(results[4].isError, true);
    equal(
      firstText(results[4]),
      'Invalid arguments for tool "everything_read_resource":\n  - uri: is required\n' +
        "Received arguments: {}",
    );
  } finally {
    await plugin.dispose();
  }
});

Deno.test("mcp prompt tools: list, get with arguments, a missing argument, an unknown prompt", async () => {
  const plugin = await mcp({ name: "everything", ...EVERYTHING, tools: [] });
  try {
    const { results } = await run(plugin, [
      toolCall("everything_list_prompts", {}),
      toolCall("everything_get_prompt", { name: "args-prompt", arguments: { city: "Paris" } }),
      toolCall("everything_get_prompt", {
        name: "resource-prompt",
        arguments: { resourceType: "Text", resourceId: "2" },
      }),
      toolCall("everything_get_prompt", { name: "args-prompt" }),
      toolCall("everything_get_prompt", { name: "nope" }),
    ]);
    match(
      firstText(results[0])!,
      /\n- args-prompt\(city \(Name of the city\), state\?\): A prompt with two arguments/,
    );
    equal(firstText(results[1]), "[user]\nWhat's weather in Paris?");
    deepEqual(results[1].details, {
      server: "everything",
      tool: "prompts/get",
      prompt: "args-prompt",
    });
    match(
      results[2].content.map((part) => part.type === "text" ? part.text : "").join("\n"),
      /\[user\]\n\[resource demo:\/\/resource\/dynamic\/text\/2\]\nResource 2: /,
    );
    equal(results[3].isError, true);
    equal(
      firstText(results[3]),
      'MCP server "everything" rejected request "prompts/get args-prompt": MCP error -32602: ' +
        "Invalid arguments for prompt args-prompt: Invalid input: expected string, received undefined at city",
    );
    equal(
      firstText(results[4]),
      'MCP server "everything" rejected request "prompts/get nope": MCP error -32602: Prompt nope not found',
    );
  } finally {
    await plugin.dispose();
  }
});

Deno.test("McpConnection: resources and prompts for the host", async () => {
  const connection = new McpConnection("everything", EVERYTHING);
  try {
    const capabilities = await connection.capabilities();
    equal(capabilities.resources !== undefined && capabilities.prompts !== undefined, true);
    const resources = await connection.listResources();
    equal(resources.some((r) => r.uri === "demo://resource/static/document/features.md"), true);
    const templates = await connection.listResourceTemplates();
    deepEqual(templates.map((t) => t.uriTemplate), [
      "demo://resource/dynamic/text/{resourceId}",
      "demo://resource/dynamic/blob/{resourceId}",
    ]);
    const read = await connection.readResource("demo://resource/dynamic/text/3");
    match(String(read.contents[0].text), /^Resource 3: /);
    const prompts = await connection.listPrompts();
    equal(prompts.some((p) => p.name === "simple-prompt"), true);
    const prompt = await connection.getPrompt("args-prompt", { city: "Oslo", state: "Viken" });
    equal(
      prompt.messages[0].content.type === "text" && prompt.messages[0].content.text,
      "What's weather in Oslo, Viken?",
    );
  } finally {
    await connection.close();
  }
  // A server without prompts says so, in its words.
  const fixture = new McpConnection("fixture", STDIO_SERVER);
  try {
    let error: Error | undefined;
    await fixture.listPrompts().catch((e) => error = e);
    equal(error?.message, "MCP error -32601: Method not found");
  } finally {
    await fixture.close();
  }
});

Deno.test("McpConnection.onToolsChanged hears list_changed, also after a restart; unsubscribing stops it", async () => {
  const connection = new McpConnection("changing", fixtureServer("changing_server.ts"));
  try {
    let heard = 0;
    let changed = Promise.withResolvers<void>();
    const unsubscribe = connection.onToolsChanged(() => {
      heard++;
      changed.resolve();
    });
    await connection.callTool("grow", {});
    await changed.promise;
    deepEqual((await connection.listTools()).map((tool) => tool.name), ["grow", "crash", "extra1"]);
    equal(heard, 1);
    unsubscribe();
    let other = 0;
    connection.onToolsChanged(() => other++);
    changed = Promise.withResolvers<void>();
    connection.onToolsChanged(() => changed.resolve());
    await connection.callTool("grow", {});
    await changed.promise;
    equal(heard, 1);
    equal(other, 1);
    // A restarted server's notifications reach the same subscribers.
    await connection.callTool("crash", {}).catch(() => {});
    changed = Promise.withResolvers<void>();
    await connection.callTool("grow", {});
    await changed.promise;
    equal(connection.starts, 2);
    equal(other, 2);
  } finally {
    await connection.close();
  }
});

Deno.test("server-everything: the last progress of a long-running operation arrives", async () => {
  const plugin = await mcp({
    name: "everything",
    ...EVERYTHING,
    tools: ["trigger-long-running-operation"],
    resources: false,
    prompts: false,
    progressIntervalMs: 0, // every notification shown, however close together they arrive
  });
  try {
    const { results, events } = await run(plugin, [
      toolCall("everything_trigger-long-running-operation", { duration: 0.15, steps: 3 }),
    ]);
    equal(
      firstText(results[0]),
      "Long running operation completed. Duration: 0.15 seconds, Steps: 3.",
    );
    // The server sends the result right after the last notification.
    const updates = events.flatMap((event) =>
      event.type === "tool_execution_update" && event.partialResult.content[0]?.type === "text"
        ? [event.partialResult.content[0].text]
        : []
    );
    deepEqual(updates, ["progress 1/3", "progress 2/3", "progress 3/3"]);
  } finally {
    await plugin.dispose();
  }
});
