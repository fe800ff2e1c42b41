import {
  AssistantMessageStream,
  createAgent,
  definePlugin,
  defineTool,
  type Model,
  scriptedModel,
  text,
  toolCall,
} from "@tack/agent";
import { Type } from "typebox";
import { deepEqual, equal, ok } from "node:assert/strict";
import { echoTool, recordEvents, resultsOf, textOf } from "../support/agent_harness.ts";

Deno.test("a length-truncated message runs none of its calls and asks the model to re-issue them", async () => {
  let ran = 0;
  const counted = defineTool({
    name: "counted",
    description: "",
    parameters: Type.Object({}),
    execute: () => {
      ran++;
      return { content: [{ type: "text", text: "ran" }] };
    },
  });
  const model = scriptedModel([
    { content: [toolCall("counted", {}, "x"), toolCall("counted", {}, "y")], stopReason: "length" },
    [toolCall("counted", {}, "z")],
    [text("done")],
  ]);
  const agent = createAgent({ model, tools: [counted] });
  const results = resultsOf(await agent.prompt("go"));
  deepEqual(results.map((r) => [r.toolCallId, r.isError]), [["x", true], ["y", true], [
    "z",
    false,
  ]]);
  equal(
    textOf(results[0]),
    'Tool counted was not run: your response was cut off at the output token limit (stopReason "length"), ' +
      "so its arguments may be incomplete. Re-issue the call, with shorter arguments if you can.",
  );
  equal(ran, 1);
});

Deno.test("maxTurns ends the run with a clear message instead of looping forever", async () => {
  const model = scriptedModel(Array.from({ length: 10 }, () => [toolCall("echo")]));
  const agent = createAgent({ model, tools: [echoTool()], maxTurns: 3 });
  const events = recordEvents(agent);
  const added = await agent.prompt("loop");
  equal(model.requests.length, 3);
  const last = added.at(-1);
  equal(last?.role, "assistant");
  if (last?.role !== "assistant") return;
  equal(last.stopReason, "error");
  equal(
    last.errorMessage,
    "Stopped after 3 model turns (maxTurns) before the model finished. Send another prompt to let it go on, or raise maxTurns.",
  );
  equal(events.at(-1)?.type, "agent_end");
});

Deno.test("shouldStopAfterTurn from a plugin ends the run after the current turn", async () => {
  const model = scriptedModel([[toolCall("echo")], [toolCall("echo")], [text("never")]]);
  const stopper = definePlugin({
    name: "stopper",
    shouldStopAfterTurn: ({ toolResults }) => toolResults.length > 0,
  });
  const agent = createAgent({ model, tools: [echoTool()], plugins: [stopper] });
  const added = await agent.prompt("go");
  equal(model.requests.length, 1);
  equal(added.at(-1)?.role, "toolResult");
});

Deno.test("a steering message is injected after the current turn's tool calls", async () => {
  const model = scriptedModel([[toolCall("echo")], [text("steered")]]);
  const agent = createAgent({ model, tools: [echoTool()] });
  agent.subscribe((e) => {
    if (e.type === "tool_execution_start") agent.steer("actually, use Celsius");
  });
  await agent.prompt("go");
  deepEqual(model.requests[1].messages.map((m) => m.role), [
    "user",
    "assistant",
    "toolResult",
    "user",
  ]);
  equal(model.requests[1].messages[3].content, "actually, use Celsius");
});

Deno.test("a follow-up runs only once the agent would otherwise stop", async () => {
  const model = scriptedModel([[text("first answer")], [text("second answer")]]);
  const agent = createAgent({ model });
  agent.followUp("and another thing");
  const added = await agent.prompt("hi");
  deepEqual(added.map((m) => m.role), ["user", "assistant", "user", "assistant"]);
  equal(model.requests.length, 2);
});

Deno.test("running past the script ends the turn with stopReason error and a clear message", async () => {
  const agent = createAgent({ model: scriptedModel([[text("only one")]]) });
  await agent.prompt("one");
  const added = await agent.prompt("two");
  const last = added.at(-1);
  equal(last?.role === "assistant" && last.stopReason, "error");
  equal(
    last?.role === "assistant" && last.errorMessage,
    "Scripted model has no step for turn 2 (the script has 1)",
  );
});

Deno.test("a model that throws (breaking its contract) still ends the run with an error message", async () => {
  const broken: Model = {
    provider: "broken",
    id: "b",
    stream: () => {
      throw new Error("socket exploded");
    },
  };
  const agent = createAgent({ model: broken });
  const added = await agent.prompt("hi");
  const last = added.at(-1);
  equal(last?.role === "assistant" && last.errorMessage, "Model stream failed: socket exploded");
  equal(last?.role === "assistant" && last.provider, "broken");
});

Deno.test("a model whose stream ends without done still yields its result", async () => {
  const model: Model = {
    provider: "p",
    id: "m",
    stream: () => {
      const stream = new AssistantMessageStream();
      const message = {
        role: "assistant" as const,
        content: [text("quiet")],
        stopReason: "stop" as const,
        usage: {
          input: 1,
          output: 1,
          cacheRead: 0,
          cacheWrite: 0,
          totalTokens: 2,
          cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
        },
        provider: "p",
        model: "m",
        timestamp: 0,
      };
      stream.push({ type: "done", reason: "stop", message });
      return stream;
    },
  };
  const agent = createAgent({ model });
  const events = recordEvents(agent);
  const added = await agent.prompt("hi");
  equal(textOf(added[1] as { content: { type: string; text?: string }[] }), "quiet");
  deepEqual(events.filter((e) => e.type.startsWith("message")).map((e) => e.type), [
    "message_start",
    "message_end",
    "message_start",
    "message_end",
  ]);
});

Deno.test("transformContext changes what the model sees, not the transcript", async () => {
  const model = scriptedModel([[text("a")], [text("b")]]);
  const agent = createAgent({ model, transformContext: (messages) => messages.slice(-1) });
  await agent.prompt("one");
  await agent.prompt("two");
  equal(model.requests[1].messages.length, 1);
  equal(agent.messages.length, 4);
});

Deno.test("prompt() while a run is in progress throws, steer() queues instead", async () => {
  const agent = createAgent({
    model: scriptedModel([{ content: [text("slow")], delayMs: 20 }, [text("b")]]),
  });
  const running = agent.prompt("one");
  let message = "";
  try {
    await agent.prompt("two");
  } catch (error) {
    message = (error as Error).message;
  }
  equal(
    message,
    "Cannot prompt: a run is in progress; use steer() or followUp() to queue a message",
  );
  await running;
});

Deno.test("continue() resumes from the transcript, and messages passed to createAgent seed it", async () => {
  const first = createAgent({
    model: scriptedModel([{ stopReason: "error", errorMessage: "overloaded" }]),
  });
  await first.prompt("hi");
  const second = createAgent({
    model: scriptedModel([[text("recovered")]]),
    messages: first.messages,
  });
  const added = await second.continue();
  equal(added.length, 1);
  equal(second.messages.length, 3);
  ok(!Object.is(second.messages, first.messages));
});
