// scriptedModel's record of what it was asked: each request keeps the transcript as it was on
// its turn, however the transcript grows after, and serializes whole.
import { deepEqual, equal } from "node:assert/strict";
import { createAgent, defineTool, scriptedModel, text, toolCall, Type } from "../../mod.ts";

Deno.test("scriptedModel: each recorded request holds the transcript of its turn, read after the run, and it is a plain object (keys, spread, JSON)", async () => {
  const echo = defineTool({
    name: "echo",
    description: "Echoes",
    parameters: Type.Object({ text: Type.String() }),
    execute: ({ text }) => ({ content: [{ type: "text", text }] }),
  });
  const model = scriptedModel([[toolCall("echo", { text: "a" }, "c1")], [text("done")]]);
  const agent = createAgent({ model, tools: [echo], systemPrompt: "be brief" });
  await agent.prompt("go");
  equal(agent.messages.length, 4);
  deepEqual(model.requests.map((request) => request.messages.map((m) => m.role)), [
    ["user"],
    ["user", "assistant", "toolResult"],
  ]);
  // A plain object: a deep comparison, its keys, a spread and JSON see all three fields.
  const [first] = model.requests;
  deepEqual(first, { systemPrompt: "be brief", tools: first.tools, messages: [agent.messages[0]] });
  deepEqual(Object.keys({ ...first }).sort(), ["messages", "systemPrompt", "tools"]);
  const written = JSON.parse(JSON.stringify(first));
  deepEqual(Object.keys(written).sort(), ["messages", "systemPrompt", "tools"]);
  equal(written.systemPrompt, "be brief");
  deepEqual(written.messages.map((m: { role: string }) => m.role), ["user"]);
  deepEqual(written.tools.map((tool: { name: string }) => tool.name), ["echo"]);
});
