import {
  createAgent,
  definePlugin,
  defineTool,
  type PluginHost,
  scriptedModel,
  text,
  toolCall,
  Type,
} from "@tack/agent";
import { deepEqual, equal, throws } from "node:assert/strict";
import { echoTool, resultsOf, textOf } from "../support/agent_harness.ts";

const namesOf = (tools: readonly { name: string }[]) => tools.map((t) => t.name);

Deno.test("prepareTurn chooses each model call's tools and system prompt; unknown-tool errors list that turn's tools", async () => {
  const read = echoTool("read");
  const write = echoTool("write");
  const model = scriptedModel([
    [toolCall("write", {}, "1"), toolCall("read", {}, "2")],
    [toolCall("write", {}, "3")],
    [text("done")],
  ]);
  const seen: { turn: number; tools: string[] }[] = [];
  const agent = createAgent({
    model,
    systemPrompt: "base",
    tools: [read, write],
    prepareTurn: ({ turn, tools, systemPrompt }) => {
      seen.push({ turn, tools: namesOf(tools) });
      return turn === 1
        ? { tools: tools.filter((t) => t.name === "read"), systemPrompt: `${systemPrompt} (plan)` }
        : undefined;
    },
  });
  const results = resultsOf(await agent.prompt("go"));
  deepEqual(seen, [
    { turn: 1, tools: ["read", "write"] },
    { turn: 2, tools: ["read", "write"] },
    { turn: 3, tools: ["read", "write"] },
  ]);
  deepEqual(model.requests.map((r) => namesOf(r.tools)), [["read"], ["read", "write"], [
    "read",
    "write",
  ]]);
  deepEqual(model.requests.map((r) => r.systemPrompt), ["base (plan)", "base", "base"]);
  equal(agent.systemPrompt, "base");
  deepEqual(results.map(textOf), ["Tool write not found. Available tools: read", "read", "write"]);
  deepEqual(results.map((r) => r.isError), [true, false, false]);
});

Deno.test("plugins' prepareTurn hooks compose in order, then the agent's; a throw ends the run with a message naming the plugin", async () => {
  const tools = [echoTool("a"), echoTool("b"), echoTool("c")];
  const dropA = definePlugin({
    name: "drop-a",
    prepareTurn: ({ tools }) => ({ tools: tools.filter((t) => t.name !== "a") }),
  });
  const model = scriptedModel([[text("hi")]]);
  const agent = createAgent({
    model,
    tools,
    plugins: [dropA],
    prepareTurn: ({ tools }) => ({ tools: tools.filter((t) => t.name !== "b") }),
  });
  await agent.prompt("go");
  deepEqual(namesOf(model.requests[0].tools), ["c"]);

  const broken = definePlugin({
    name: "broken",
    prepareTurn: () => {
      throw new Error("policy store down");
    },
  });
  const failing = createAgent({ model: scriptedModel([[text("never")]]), plugins: [broken] });
  const added = await failing.prompt("go");
  const last = added.at(-1)!;
  equal(last.role, "assistant");
  if (last.role !== "assistant") return;
  equal(last.stopReason, "error");
  equal(
    last.errorMessage,
    'Cannot start turn 1: prepareTurn failed: plugin "broken": policy store down',
  );
});

Deno.test("a tool prepareTurn chooses from outside the registry has its schema checked: one that does not compile ends the run before any model call", async () => {
  // defineTool no longer compiles a schema (registration does), and prepareTurn may offer
  // tools nobody registered; such a tool must fail before the model sees it, not at a call.
  const find = defineTool({
    name: "find",
    description: "Finds",
    parameters: Type.Object({ text: Type.String({ pattern: "(" }) }),
    execute: () => ({ content: [{ type: "text", text: "ran" }] }),
  });
  const why = 'pattern "(" is not valid RE2 syntax, which schemas are checked with ' +
    "(no backreferences or lookaround): missing closing ): `(`";
  for (
    const [plugins, prepareTurn, owner] of [
      [
        [definePlugin({ name: "keeper", prepareTurn: () => ({ tools: [find] }) })],
        undefined,
        'plugin "keeper"',
      ],
      [[], () => ({ tools: [echoTool("a"), find] }), "the agent's own hook"],
    ] as const
  ) {
    const model = scriptedModel([[toolCall("find", { text: "a" })], [text("never")]]);
    const agent = createAgent({ model, plugins: [...plugins], prepareTurn });
    const added = await agent.prompt("go");
    equal(model.requests.length, 0);
    deepEqual(resultsOf(added), []);
    const last = added.at(-1)!;
    equal(last.role === "assistant" && last.stopReason, "error");
    equal(
      last.role === "assistant" && last.errorMessage,
      `Cannot start turn 1: prepareTurn failed: ${owner}: it chose tool "find", whose parameter schema is invalid: ${why}`,
    );
  }
  // The registered tools it narrows are not checked again; a valid new tool is offered.
  const model = scriptedModel([[text("ok")]]);
  const agent = createAgent({
    model,
    tools: [echoTool("a"), echoTool("b")],
    prepareTurn: ({ tools }) => ({
      tools: [...tools.filter((t) => t.name === "a"), echoTool("c")],
    }),
  });
  await agent.prompt("go");
  deepEqual(namesOf(model.requests[0].tools), ["a", "c"]);
});

Deno.test("prepareTurn may cap one turn's batch (maxConcurrency per batch)", async () => {
  let running = 0;
  let max = 0;
  const slow = {
    ...echoTool("slow"),
    execute: async () => {
      running++;
      max = Math.max(max, running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running--;
      return { content: [{ type: "text" as const, text: "ok" }] };
    },
  };
  const calls = [toolCall("slow", {}), toolCall("slow", {}), toolCall("slow", {})];
  const model = scriptedModel([calls, [text("done")]]);
  const agent = createAgent({ model, tools: [slow], prepareTurn: () => ({ maxConcurrency: 1 }) });
  await agent.prompt("go");
  equal(max, 1);
});

Deno.test("agent.setTools replaces the agent's own tools between runs; plugins keep theirs; a clash changes nothing", async () => {
  const fsPlugin = definePlugin({ name: "fs", tools: [echoTool("read")] });
  const model = scriptedModel([[text("one")], [toolCall("old", {}, "x")], [text("two")]]);
  const agent = createAgent({ model, plugins: [fsPlugin], tools: [echoTool("old")] });
  await agent.prompt("first");
  agent.setTools([echoTool("new")]);
  deepEqual(namesOf(agent.tools), ["read", "new"]);
  const results = resultsOf(await agent.prompt("second"));
  deepEqual(namesOf(model.requests[1].tools), ["read", "new"]);
  deepEqual(results.map(textOf), ["Tool old not found. Available tools: read, new"]);
  throws(
    () => agent.setTools([echoTool("read")]),
    new Error(
      'Cannot set tools: tool "read" is registered twice, by plugin "fs" and by createAgent({ tools })',
    ),
  );
  deepEqual(namesOf(agent.tools), ["read", "new"]);
});

Deno.test("a plugin adds and removes its tools at runtime through its host; the change applies from the next model call", async () => {
  const hosts: PluginHost[] = [];
  const connect = echoTool("connect");
  const query = echoTool("query");
  const remote = definePlugin({
    name: "remote",
    tools: [{
      ...connect,
      execute: () => {
        // The server announced a new tool list (as MCP's tools/list_changed does).
        for (const host of hosts) host.setTools([query]);
        return { content: [{ type: "text", text: "connected" }] };
      },
    }],
    attach: (host) => void hosts.push(host),
  });
  const model = scriptedModel([
    [toolCall("connect", {}, "1"), toolCall("query", {}, "2")],
    [toolCall("query", {}, "3"), toolCall("connect", {}, "4")],
    [text("done")],
  ]);
  const agent = createAgent({ model, plugins: [remote], tools: [echoTool("local")] });
  equal(hosts.length, 1);
  const results = resultsOf(await agent.prompt("go"));
  deepEqual(model.requests.map((r) => namesOf(r.tools)), [
    ["connect", "local"],
    ["query", "local"],
    ["query", "local"],
  ]);
  deepEqual(results.map(textOf), [
    "connected",
    // The batch in progress keeps the tools it started with: query was not there yet.
    "Tool query not found. Available tools: connect, local",
    "query",
    "Tool connect not found. Available tools: query, local",
  ]);
  equal(agent.tools.find((t) => t.name === "query")?.plugin, "remote");
  throws(
    () => hosts[0].setTools([echoTool("local")]),
    new Error(
      'Cannot set tools of plugin "remote": tool "local" is registered twice, by plugin "remote" and by createAgent({ tools })',
    ),
  );
});

Deno.test("setTools (the agent's and a plugin host's) refuses a tool whose schema does not compile, naming it and its owner; nothing changes", () => {
  // defineTool does not compile the schema: registering the tool does.
  const find = defineTool({
    name: "find",
    description: "Finds",
    parameters: Type.Object({ text: Type.String({ pattern: "(" }) }),
    execute: () => ({ content: [] }),
  });
  const why = 'has an invalid parameter schema: pattern "(" is not valid RE2 syntax, which ' +
    "schemas are checked with (no backreferences or lookaround): missing closing ): `(`";
  const hosts: PluginHost[] = [];
  const agent = createAgent({
    model: scriptedModel([]),
    tools: [echoTool("local")],
    plugins: [definePlugin({ name: "remote", attach: (host) => void hosts.push(host) })],
  });
  throws(
    () => agent.setTools([echoTool("other"), find]),
    new Error(`Cannot set tools: tool "find" (from createAgent({ tools })) ${why}`),
  );
  throws(
    () => hosts[0].setTools([find]),
    new Error(`Cannot set tools of plugin "remote": tool "find" (from plugin "remote") ${why}`),
  );
  deepEqual(namesOf(agent.tools), ["local"]);
});
