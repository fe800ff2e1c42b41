// Every hook a sandboxed plugin registers runs in the sandbox: none is dropped silently.
import { createAgent, scriptedModel, text, toolCall, type ToolResultMessage } from "@tack/agent";
import { deepEqual, equal } from "node:assert/strict";
import { loadPlugin } from "../../sdk/sandbox/mod.ts";

Deno.test("verifyToolCall, shouldStopAfterTurn and onEvent of a sandboxed plugin are proxied", async () => {
  const plugin = await loadPlugin("./tests/fixtures/sandbox/policy_plugin.ts", {
    sandbox: true,
    stderr: "capture",
    // Every event of the run, not only its own tools' (see capabilities_test.ts).
    hooks: "all",
    onWarning: () => {},
  });
  try {
    equal(typeof plugin.verifyToolCall, "function");
    equal(typeof plugin.shouldStopAfterTurn, "function");
    equal(typeof plugin.onEvent, "function");
    const model = scriptedModel([
      [toolCall("count", { n: 1 }, "a"), toolCall("count", { n: 13 }, "b")],
      [toolCall("seen", {}, "c")],
      [toolCall("stop", {}, "d")],
      [text("never asked")],
    ]);
    const agent = createAgent({ model, plugins: [plugin] });
    const added = await agent.prompt("go");
    const results = added.filter((m): m is ToolResultMessage => m.role === "toolResult");
    const texts = results.map((r) =>
      r.content.map((c) => c.type === "text" ? c.text : "").join("")
    );
    deepEqual(texts.slice(0, 2), ["n=1", "13 is refused in the sandbox"]);
    deepEqual(results.map((r) => r.isError), [false, true, false, false]);
    // onEvent saw the run's events but never the message_update deltas.
    equal(
      texts[2],
      "agent_start,message_end,message_start,tool_execution_end,tool_execution_start,turn_end,turn_start",
    );
    equal(model.requests.length, 3, "shouldStopAfterTurn ended the run after the stop tool");
  } finally {
    await plugin.dispose?.();
  }
});
