import { createAgent, scriptedModel, text, toolCall } from "@tack/agent";
import { mcp } from "@tack/agent/plugins/mcp";
import { deepEqual, equal } from "node:assert/strict";
import { fixtureServer } from "./mcp_fixture.ts";
import { resultsOf, textOf } from "../support/agent_harness.ts";

const CHANGING_SERVER = fixtureServer("swapping_server.ts");

Deno.test("an MCP server that changes its tool list mid-run: the next model call sees the new list", async () => {
  const plugin = await mcp({ name: "changing", ...CHANGING_SERVER });
  try {
    deepEqual(plugin.tools.map((t) => t.name), ["changing_grow"]);
    const model = scriptedModel([
      [toolCall("changing_grow", {}, "1")],
      [toolCall("changing_late", {}, "2"), toolCall("changing_grow", {}, "3")],
      [text("done")],
    ]);
    const agent = createAgent({ model, plugins: [plugin] });
    const results = resultsOf(await agent.prompt("go"));
    deepEqual(model.requests.map((r) => r.tools.map((t) => t.name)), [
      ["changing_grow"],
      ["changing_late"],
      ["changing_late"],
    ]);
    deepEqual(results.map(textOf), [
      "grown",
      "late tool ran",
      "Tool changing_grow not found. Available tools: changing_late",
    ]);
    deepEqual(plugin.tools.map((t) => t.name), ["changing_late"]);
    equal(agent.tools[0].plugin, "changing");
  } finally {
    await plugin.dispose();
  }
});

Deno.test("a burst of list_changed notifications lists the tools again once or twice, not once each", async () => {
  const plugin = await mcp({ name: "noisy", ...fixtureServer("noisy_server.ts") });
  try {
    const connection = plugin.servers.get("noisy")!;
    const signal = new AbortController().signal;
    const shout = await connection.callTool("shout", {}, { signal });
    equal(shout.content[0].type === "text" && shout.content[0].text, "shouted");
    await plugin.prepareTurn!({ systemPrompt: "", messages: [], tools: [], turn: 1 }, signal);
    const lists = await connection.callTool("lists", {}, { signal });
    // The first listing, the refresh the first notification started, and one more for
    // all the notifications that came while it ran (each listing builds every schema).
    const count = Number(lists.content[0].type === "text" && lists.content[0].text);
    equal(count >= 2 && count <= 3, true, `the tools were listed ${count} times`);
  } finally {
    await plugin.dispose();
  }
});
