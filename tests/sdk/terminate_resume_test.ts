// A batch stops the run only if every one of its results asks to (`terminate: true`), also
// when the batch was interrupted by a deferred call and resumed: the results that finished
// before the interruption count too.
import {
  approveCall,
  createAgent,
  defineTool,
  scriptedModel,
  text,
  toolCall,
  type ToolResult,
} from "@tack/agent";
import { Type } from "typebox";
import { deepEqual, equal } from "node:assert/strict";

function agentWith(readTerminates: boolean) {
  const read = defineTool({
    name: "read",
    description: "Reads",
    parameters: Type.Object({}),
    execute: () => ({ content: [{ type: "text", text: "read" }], terminate: readTerminates }),
  });
  const deploy = defineTool({
    name: "deploy",
    description: "Deploys",
    parameters: Type.Object({}),
    execute: () => ({ content: [{ type: "text", text: "deployed" }], terminate: true }),
  });
  const model = scriptedModel([
    [toolCall("read", {}, "c1"), toolCall("deploy", {}, "c2")],
    [text("after the batch")],
  ]);
  const agent = createAgent({
    model,
    tools: [read, deploy],
    beforeToolCall: ({ toolCall }) =>
      toolCall.name === "deploy" ? { defer: true, reason: "needs approval" } : undefined,
  });
  return { agent, model };
}

Deno.test("resume: a result from before the interruption that did not ask to stop keeps the run going", async () => {
  const { agent, model } = agentWith(false);
  await agent.prompt("go");
  equal(agent.pending.length, 1);
  const added = await agent.resume([approveCall(agent.pending[0])]);
  // read did not ask to stop: the model sees both results (added on resume, in call order).
  equal(model.requests.length, 2);
  deepEqual(added.map((m) => m.role), ["toolResult", "toolResult", "assistant"]);
});

Deno.test("resume: when every result of the batch asked to stop, before and after the interruption, the run stops", async () => {
  const { agent, model } = agentWith(true);
  await agent.prompt("go");
  const added = await agent.resume([approveCall(agent.pending[0])]);
  equal(model.requests.length, 1);
  deepEqual(added.map((m) => m.role), ["toolResult", "toolResult"]);
  // The flag is kept on the result message (it is how the interrupted batch remembers it).
  const results = agent.messages.filter((m) => m.role === "toolResult");
  deepEqual(results.map((m) => m.role === "toolResult" && m.terminate), [true, true]);
});

Deno.test("state() taken mid-batch keeps a finished result's request to stop", async () => {
  let release = () => {};
  const quick = defineTool({
    name: "quick",
    description: "Stops",
    parameters: Type.Object({}),
    execute: () => ({ content: [{ type: "text", text: "done" }], terminate: true }),
  });
  const slow = defineTool({
    name: "slow",
    description: "Waits",
    parameters: Type.Object({}),
    execute: () =>
      new Promise<ToolResult>((resolve) => {
        release = () => resolve({ content: [{ type: "text", text: "late" }] });
      }),
  });
  const agent = createAgent({
    model: scriptedModel([[toolCall("quick", {}, "c1"), toolCall("slow", {}, "c2")], [text("ok")]]),
    tools: [quick, slow],
  });
  const quickEnded = new Promise<void>((resolve) =>
    agent.subscribe((event) => {
      if (event.type === "tool_execution_end" && event.toolName === "quick") resolve();
    })
  );
  const run = agent.prompt("go");
  await quickEnded;
  const state = agent.state();
  deepEqual(state.completed.map((result) => [result.toolCallId, result.terminate]), [["c1", true]]);
  release();
  await run;
});
