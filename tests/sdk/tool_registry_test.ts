import { ToolRegistry } from "@tack/agent";
import { deepEqual, throws } from "node:assert/strict";
import { echoTool } from "../support/agent_harness.ts";

Deno.test("ToolRegistry.set refuses an owner it was not built with, and nothing changes", () => {
  const registry = new ToolRegistry([{ owner: "mcp", tools: [echoTool("a")] }]);
  const seen: string[][] = [];
  registry.onChange((tools) => seen.push(tools.map((tool) => tool.name)));
  throws(
    () => registry.set("stranger", [echoTool("b")]),
    new Error('Cannot set tools: plugin "stranger" is not one of the agent\'s plugins'),
  );
  deepEqual(registry.tools.map((tool) => tool.name), ["a"]);
  deepEqual(seen, []);
});

Deno.test("ToolRegistry: the agent's own set always exists, even when not given", () => {
  const registry = new ToolRegistry([{ owner: "mcp", tools: [echoTool("a")] }]);
  registry.set(undefined, [echoTool("b")]);
  deepEqual(registry.tools.map((tool) => tool.name), ["a", "b"]);
  deepEqual(registry.tools.map((tool) => tool.plugin), ["mcp", undefined]);
});

Deno.test("ToolRegistry: a clash refuses the whole change; the listener is not called", () => {
  const registry = new ToolRegistry([
    { owner: "mcp", tools: [echoTool("a")] },
    { owner: undefined, tools: [echoTool("b")] },
  ]);
  let calls = 0;
  registry.onChange(() => calls++);
  throws(
    () => registry.set(undefined, [echoTool("c"), echoTool("a")]),
    new Error(
      'Cannot set tools: tool "a" is registered twice, by plugin "mcp" and by createAgent({ tools })',
    ),
  );
  deepEqual(registry.tools.map((tool) => tool.name), ["a", "b"]);
  deepEqual(calls, 0);
});
