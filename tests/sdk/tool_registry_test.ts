import { type AgentTool, ToolRegistry } from "@tack/agent";
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

Deno.test("ToolRegistry: effects that are not an array of known effects are refused", () => {
  const registry = new ToolRegistry([{ owner: "mcp", tools: [echoTool("a")] }]);
  const withEffects = (effects: unknown) => ({ ...echoTool("b"), effects } as AgentTool);
  throws(
    () => registry.set("mcp", [withEffects(Object)]),
    new Error(
      'Cannot set tools of plugin "mcp": tool "b" (from plugin "mcp") has invalid effects: they are function, not an array',
    ),
  );
  throws(
    () => registry.set("mcp", [withEffects(["read", "delete"])]),
    new Error(
      'Cannot set tools of plugin "mcp": tool "b" (from plugin "mcp") has invalid effects: "delete" is not one of read, write, exec, net',
    ),
  );
  throws(
    () => new ToolRegistry([{ owner: undefined, tools: [withEffects([undefined])] }]),
    new Error(
      'Cannot create agent: tool "b" (from createAgent({ tools })) has invalid effects: undefined is not one of read, write, exec, net',
    ),
  );
  registry.set("mcp", [withEffects(["read", "net"])]);
  deepEqual(registry.tools.map((tool) => tool.effects), [["read", "net"]]);
});
