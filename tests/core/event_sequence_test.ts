import { createAgent, scriptedModel, text, toolCall } from "@tack/agent";
import { deepEqual, equal } from "node:assert/strict";
import { echoTool, recordEvents } from "../support/agent_harness.ts";

Deno.test("a one-call run emits the exact event sequence", async () => {
  const agent = createAgent({
    model: scriptedModel([[toolCall("echo", { text: "hi" }, "c1")], [text("done")]]),
    tools: [echoTool()],
  });
  const events = recordEvents(agent);
  await agent.prompt("go");
  const sequence = events.map((e) => {
    if (e.type === "message_start" || e.type === "message_end") {
      return `${e.type}:${e.message.role}`;
    }
    if (e.type === "message_update") return `update:${e.assistantMessageEvent.type}`;
    if (e.type.startsWith("tool_execution")) {
      return `${e.type}:${(e as { toolCallId: string }).toolCallId}`;
    }
    return e.type;
  });
  deepEqual(sequence, [
    "agent_start",
    "turn_start",
    "message_start:user",
    "message_end:user",
    "message_start:assistant",
    "update:toolcall_start",
    "update:toolcall_delta",
    "update:toolcall_end",
    "message_end:assistant",
    "tool_execution_start:c1",
    "tool_execution_end:c1",
    "message_start:toolResult",
    "message_end:toolResult",
    "turn_end",
    "turn_start",
    "message_start:assistant",
    "update:text_start",
    "update:text_delta",
    "update:text_end",
    "message_end:assistant",
    "turn_end",
    "agent_end",
  ]);
});

Deno.test("event payloads carry the call, its arguments and its result", async () => {
  const agent = createAgent({
    model: scriptedModel([[toolCall("echo", { text: "hi" }, "c1")], [text("done")]]),
    tools: [echoTool()],
  });
  const events = recordEvents(agent);
  const added = await agent.prompt("go");
  const start = events.find((e) => e.type === "tool_execution_start");
  deepEqual(start, {
    type: "tool_execution_start",
    toolCallId: "c1",
    toolName: "echo",
    args: { text: "hi" },
  });
  const end = events.find((e) => e.type === "tool_execution_end");
  deepEqual(end, {
    type: "tool_execution_end",
    toolCallId: "c1",
    toolName: "echo",
    result: { content: [{ type: "text", text: "hi" }] },
    isError: false,
    args: { text: "hi" },
  });
  const turnEnds = events.filter((e) => e.type === "turn_end");
  equal(turnEnds.length, 2);
  equal(turnEnds[0].type === "turn_end" && turnEnds[0].toolResults[0].toolCallId, "c1");
  const agentEnd = events.at(-1);
  equal(agentEnd?.type === "agent_end" && agentEnd.messages, added);
  deepEqual(added.map((m) => m.role), ["user", "assistant", "toolResult", "assistant"]);
});

Deno.test("the model is asked with the system prompt, the transcript so far and the tools", async () => {
  const model = scriptedModel([[toolCall("echo", {}, "c1")], [text("done")]]);
  const echo = echoTool();
  const agent = createAgent({ model, systemPrompt: "Be brief.", tools: [echo] });
  await agent.prompt("go");
  equal(model.requests.length, 2);
  equal(model.requests[0].systemPrompt, "Be brief.");
  deepEqual(model.requests[0].messages.map((m) => m.role), ["user"]);
  deepEqual(model.requests[1].messages.map((m) => m.role), ["user", "assistant", "toolResult"]);
  equal(model.requests[1].tools[0].name, "echo");
});

Deno.test("a listener that throws does not break the run", async () => {
  const agent = createAgent({ model: scriptedModel([[text("ok")]]) });
  const seen: string[] = [];
  agent.subscribe(() => {
    throw new Error("listener bug");
  });
  const unsubscribe = agent.subscribe((e) => seen.push(e.type));
  const originalError = console.error;
  const reported: unknown[] = [];
  console.error = (...args: unknown[]) => reported.push(args[0]);
  try {
    const added = await agent.prompt("hi");
    equal(added.length, 2);
    equal(seen.at(-1), "agent_end");
    equal(reported.length, seen.length);
    unsubscribe();
    await agent.prompt("again");
  } finally {
    console.error = originalError;
  }
  equal(seen.filter((t) => t === "agent_end").length, 1);
});
