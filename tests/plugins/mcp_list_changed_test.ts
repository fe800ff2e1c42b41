import { createAgent, scriptedModel, text, toolCall } from "@tack/agent";
import { mcp } from "@tack/agent/plugins/mcp";
import { deepEqual, equal, ok, rejects } from "node:assert/strict";
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

/**
 * A streamable-HTTP MCP server listing one tool, `drop`, whose call answers 404 (the session is
 * gone: the client connects again). Its first `initialize` and `tools/list` answer at once;
 * each later `initialize` after `initializeMs`, each later `tools/list` after `pageMs` with
 * another cursor, for ever.
 */
function startSlowAgainServer(initializeMs: number, pageMs: number) {
  let initializes = 0;
  let lists = 0;
  const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const json = (id: unknown, result: unknown) =>
    Response.json({ jsonrpc: "2.0", id, result }, { headers: { "mcp-session-id": "s1" } });
  const tools = [{ name: "drop", inputSchema: { type: "object" } }];
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    if (request.method !== "POST") return new Response(null, { status: 405 });
    const message = await request.json();
    if (message.method === "initialize") {
      if (++initializes > 1) await later(initializeMs);
      return json(message.id, {
        protocolVersion: message.params.protocolVersion,
        capabilities: { tools: { listChanged: true } },
        serverInfo: { name: "slow-again", version: "1" },
      });
    }
    if (message.method === "tools/list") {
      if (++lists === 1) return json(message.id, { tools });
      await later(pageMs);
      return json(message.id, { tools, nextCursor: `${lists}` });
    }
    if (message.method === "tools/call") return new Response("no such session", { status: 404 });
    return new Response(null, { status: 202 });
  });
}

Deno.test("a tools refresh is bounded by one deadline, connecting again included, not the connect timeout twice", async () => {
  const server = startSlowAgainServer(1_200, 500);
  const plugin = await mcp({
    name: "web",
    url: `http://127.0.0.1:${server.addr.port}/mcp`,
    connectTimeoutMs: 2_000,
  });
  try {
    const connection = plugin.servers.get("web")!;
    await connection.callTool("drop", {}).catch(() => {}); // the session is gone
    while (connection.connected) await new Promise((resolve) => setTimeout(resolve, 10));
    const started = performance.now();
    // Connecting again takes 1.2 s, then each page 0.5 s, for ever. Before: the listing's 2 s
    // started once connected, and the refresh failed after ~3.2 s.
    await rejects(plugin.refreshTools(), {
      message: 'Cannot list the tools of MCP server "web": it did not list them all within 2000 ms',
    });
    const tookMs = performance.now() - started;
    ok(tookMs >= 1_950 && tookMs < 2_700, `the refresh took ${tookMs} ms`);
    deepEqual(plugin.tools.map((tool) => tool.name), ["web_drop"]);
  } finally {
    await plugin.dispose();
    await server.shutdown();
  }
});

/** Waits until `check` holds, or `withinMs` passed; says whether it held. */
async function until(check: () => boolean, withinMs: number): Promise<boolean> {
  const deadline = performance.now() + withinMs;
  while (!check()) {
    if (performance.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

Deno.test("a server that announces a change after every listing is listed a few times, not without a pause; a real change still shows", async () => {
  const plugin = await mcp({ name: "loud", ...fixtureServer("relisting_server.ts") });
  const names = () => plugin.tools.map((tool) => tool.name);
  try {
    const started = performance.now();
    const connection = plugin.servers.get("loud")!;
    await connection.callTool("grow", {});
    ok(await until(() => names().includes("loud_extra1"), 5_000), `tools: ${names()}`);
    await new Promise((resolve) => setTimeout(resolve, 3_000 - (performance.now() - started)));
    const lists = await connection.callTool("lists", {});
    // The load, a refresh at once, one a second after it ended, one 2 s after that: before, the
    // host listed the tools again as soon as each listing was done (~60 times a second).
    const count = Number(lists.content[0].type === "text" && lists.content[0].text);
    ok(count >= 2 && count <= 6, `the tools were listed ${count} times in 3 s`);
    // The gap has grown (4 s, then 8 s), but a change still shows.
    await connection.callTool("grow", {});
    ok(await until(() => names().includes("loud_extra2"), 15_000), `tools: ${names()}`);
    deepEqual(names(), ["loud_grow", "loud_lists", "loud_extra1", "loud_extra2"]);
  } finally {
    await plugin.dispose();
  }
});
