import { createAgent, scriptedModel, text, toolCall } from "@tack/agent";
import { mcp } from "@tack/agent/plugins/mcp";
import readOnly from "@tack/agent/plugins/read_only";
import { deepEqual, equal, ok } from "node:assert/strict";
import { firstText, fixtureServer, run } from "./mcp_fixture.ts";
import { resultsOf, textOf } from "../support/agent_harness.ts";

const malformed = (mode: string) => ({ ...fixtureServer("malformed_server.ts", mode) });

Deno.test("mcp: tools named constructor and toString get their annotations' effects, not Object's functions", async () => {
  const plugin = await mcp({ name: "h", ...malformed("names"), effects: { echo: ["read"] } });
  try {
    deepEqual(plugin.tools.map((tool) => [tool.name, tool.effects]), [
      ["h_constructor", ["write", "net"]],
      ["h_toString", ["write", "net"]],
      ["h_echo", ["read"]],
    ]);
    const { results } = await run(plugin, [
      toolCall("h_constructor", { text: "a" }, "1"),
      toolCall("h_echo", { text: "b" }, "2"),
    ], { plugins: [readOnly()] });
    deepEqual(results.map(firstText), [
      'Blocked by plugin "read-only": h_constructor has effect write, and read-only mode blocks write and exec',
      'echo:{"text":"b"}',
    ]);
  } finally {
    await plugin.dispose();
  }
});

Deno.test("mcp: a refresh that lists slowly for ever neither holds the model calls nor fails them; its failure is reported once, the old tools kept", async () => {
  const warnings: string[] = [];
  const plugin = await mcp({
    name: "h",
    ...malformed("slowlist"),
    connectTimeoutMs: 2_500,
    refreshWaitMs: 300,
    onWarning: (message) => warnings.push(message),
  });
  try {
    // The server announces a change 300 ms after the first listing; the refresh starts then.
    await new Promise((resolve) => setTimeout(resolve, 600));
    const model = scriptedModel([
      [toolCall("h_echo", { text: "a" }, "1")],
      [text("done")],
      [toolCall("h_echo", { text: "b" }, "2")],
      [text("done")],
    ]);
    const agent = createAgent({ model, plugins: [plugin], hookTimeoutMs: 5_000 });
    const started = performance.now();
    const first = resultsOf(await agent.prompt("go"));
    const second = resultsOf(await agent.prompt("again"));
    const tookMs = performance.now() - started;
    deepEqual([...first, ...second].map(textOf), ['echo:{"text":"a"}', 'echo:{"text":"b"}']);
    deepEqual(model.requests.map((request) => request.tools.map((tool) => tool.name)), [
      ["h_echo"],
      ["h_echo"],
      ["h_echo"],
      ["h_echo"],
    ]);
    // Only the first model call waited (300 ms), and the refresh is still under way.
    ok(tookMs < 1_500, `the two runs took ${tookMs} ms`);
    deepEqual(warnings, []);
    while (warnings.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    deepEqual(warnings, [
      'Cannot refresh the tools of MCP plugin "h"; it keeps the tools listed before: Cannot list the tools of MCP server "h": it did not list them all within 2500 ms',
    ]);
    deepEqual(plugin.tools.map((tool) => tool.name), ["h_echo"]);
  } finally {
    await plugin.dispose();
  }
});

Deno.test("mcp: a refresh under way does not fail a turn when the agent's toolTimeoutMs is shorter than refreshWaitMs", async () => {
  const plugin = await mcp({
    name: "h",
    ...malformed("slowlist"),
    connectTimeoutMs: 2_500,
    refreshWaitMs: 300,
    onWarning: () => {},
  });
  try {
    // The server announces a change 300 ms after the first listing; the refresh starts then.
    await new Promise((resolve) => setTimeout(resolve, 600));
    const model = scriptedModel([[toolCall("h_echo", { text: "a" }, "1")], [text("done")]]);
    // Before: the first turn failed, "Cannot start turn 1: prepareTurn did not answer within
    // 150 ms" (the agent's toolTimeoutMs bounded the plugin's wait of up to 300 ms).
    const agent = createAgent({ model, plugins: [plugin], toolTimeoutMs: 150 });
    const messages = await agent.prompt("go");
    deepEqual(resultsOf(messages).map(textOf), ['echo:{"text":"a"}']);
    const last = messages.at(-1)!;
    equal(last.role === "assistant" ? last.stopReason : last.role, "stop");
    equal(plugin.hookTimeoutMs, 1_300);
  } finally {
    await plugin.dispose();
  }
});

for (
  const [mode, why] of [
    [
      "errstring",
      "error.code: Invalid input: expected number, received string; error.message: Invalid input: expected string, received object",
    ],
    ["nullresult", "result: Invalid input: expected object, received null"],
  ]
) {
  Deno.test(`mcp: an invalid answer to a call (${mode}) fails it at once, in one line, not at its timeout`, async () => {
    const plugin = await mcp({ name: "h", ...malformed(mode) });
    try {
      const started = performance.now();
      const { results } = await run(plugin, [toolCall("h_echo", { text: "a" }, "1")], {
        toolTimeoutMs: 5_000,
      });
      deepEqual(results.map((result) => [result.isError, firstText(result)]), [
        [true, `MCP server "h" sent an invalid response to tool "echo": ${why}`],
      ]);
      const tookMs = performance.now() - started;
      ok(tookMs < 2_000, `the call took ${tookMs} ms`);
      // The connection is fine: nothing was restarted.
      deepEqual(plugin.servers.get("h")!.starts, 1);
    } finally {
      await plugin.dispose();
    }
  });
}

Deno.test("mcp: a result that does not fit MCP's schema (a block of no known type) fails in one line, and the server is not restarted", async () => {
  const plugin = await mcp({ name: "h", ...malformed("weird") });
  try {
    const { results } = await run(plugin, [
      toolCall("h_echo", { text: "a" }, "1"),
      toolCall("h_echo", { text: "b" }, "2"),
    ]);
    deepEqual(results.map((result) => [result.isError, firstText(result)]), [
      [
        true,
        'MCP server "h" sent an invalid response to tool "echo": content.1.type: expected one of "text", "image", "audio", "resource_link", "resource"',
      ],
      [
        true,
        'MCP server "h" sent an invalid response to tool "echo": content.1.type: expected one of "text", "image", "audio", "resource_link", "resource"',
      ],
    ]);
    deepEqual(plugin.servers.get("h")!.starts, 1);
  } finally {
    await plugin.dispose();
  }
});

Deno.test("mcp: a listed tool that does not fit MCP's schema is left out, with a warning; the others load", async () => {
  const warnings: string[] = [];
  const plugin = await mcp({
    name: "h",
    ...malformed("badlist"),
    onWarning: (message) => warnings.push(message),
  });
  try {
    deepEqual(plugin.tools.map((tool) => tool.name), ["h_good"]);
    deepEqual(warnings, [
      'MCP server "h" listed tool "bad", which is left out: inputSchema.type: Invalid input: expected "object"',
    ]);
    const { results } = await run(plugin, [toolCall("h_good", { text: "a" }, "1")]);
    deepEqual(results.map(firstText), ['good:{"text":"a"}']);
  } finally {
    await plugin.dispose();
  }
});

Deno.test("mcp: a listed tool left out is reported once, not at every refresh; again when its reason changes, or it comes back after being fixed", async () => {
  const warnings: string[] = [];
  const plugin = await mcp({
    name: "h",
    ...malformed("relist"),
    onWarning: (message) => warnings.push(message),
  });
  try {
    const connection = plugin.servers.get("h")!;
    const seen = [[plugin.tools.map((tool) => tool.name), [...warnings]]];
    for (let stage = 1; stage <= 4; stage++) {
      // `next` announces a change before it answers, which starts a refresh; one more is
      // awaited here (it runs after that one): two listings of each stage.
      await connection.callTool("next", {});
      await plugin.refreshTools();
      seen.push([plugin.tools.map((tool) => tool.name), [...warnings]]);
    }
    const leftOut = (why: string) => `MCP server "h" listed tool "bad", which is left out: ${why}`;
    const array = leftOut('inputSchema.type: Invalid input: expected "object"');
    const none = leftOut("inputSchema: Invalid input: expected object, received undefined");
    // Before: a warning at every listing, seven by the end (three after the first stage).
    deepEqual(seen, [
      [["h_good", "h_next"], [array]],
      [["h_good", "h_next"], [array]],
      [["h_good", "h_next"], [array, none]],
      [["h_good", "h_next", "h_bad"], [array, none]],
      [["h_good", "h_next"], [array, none, array]],
    ]);
  } finally {
    await plugin.dispose();
  }
});

Deno.test("mcp: a refresh that fails on one server says nothing of another's left-out tools (its tools stay as they were); the next refresh that holds says it", async () => {
  const warnings: string[] = [];
  const plugin = await mcp({
    servers: { h: malformed("relist"), f: malformed("listfail") },
    onWarning: (message) => warnings.push(message),
  });
  try {
    const h = plugin.servers.get("h")!;
    const f = plugin.servers.get("f")!;
    const names = () =>
      plugin.tools.map((tool) => tool.name).filter((name) => name.startsWith("h_"));
    // The failed refreshes are told too ("Cannot refresh …"): only the left-out ones count here.
    const leftOut = () => warnings.filter((message) => message.includes("left out"));
    // Stage 3: `bad` is valid and offered.
    for (let stage = 1; stage <= 3; stage++) await h.callTool("next", {});
    await plugin.refreshTools();
    deepEqual(names(), ["h_good", "h_next", "h_bad"]);
    const before = leftOut().length;
    // f refuses listings; h's `bad` turns invalid (stage 4): the refresh fails, `bad` stays.
    await f.callTool("fail", {});
    await h.callTool("next", {});
    await plugin.refreshTools().catch(() => {});
    deepEqual(names(), ["h_good", "h_next", "h_bad"]);
    // Before: told here, while h_bad was still offered, and never again once it was gone.
    deepEqual(leftOut().slice(before), []);
    await f.callTool("heal", {});
    await plugin.refreshTools();
    deepEqual(names(), ["h_good", "h_next"]);
    deepEqual(leftOut().slice(before), [
      `MCP server "h" listed tool "bad", which is left out: inputSchema.type: Invalid input: expected "object"`,
    ]);
  } finally {
    await plugin.dispose();
  }
});
