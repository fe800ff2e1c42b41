// Thrown values that String() cannot convert (an object without a prototype, a revoked proxy,
// an Error whose message getter throws) still end as results the model reads: before, an
// asynchronous tool rejecting with one crashed the process, and a model throwing one made
// prompt() reject without turn_end or agent_end.
import {
  type AssistantMessage,
  createAgent,
  definePlugin,
  defineTool,
  type Model,
  scriptedModel,
  text,
  toolCall,
} from "@tack/agent";
import { Type } from "typebox";
import { deepEqual, equal } from "node:assert/strict";
import { recordEvents, resultsOf, textOf } from "../support/agent_harness.ts";

function revokedProxy(): object {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

function errorWithUnreadableMessage(): Error {
  const error = new Error("never read");
  Object.defineProperty(error, "message", {
    get() {
      throw new Error("no");
    },
  });
  return error;
}

function throwing(name: string, value: () => unknown, asynchronous: boolean) {
  return defineTool({
    name,
    description: "",
    parameters: Type.Object({}),
    execute: asynchronous
      ? async () => {
        await Promise.resolve();
        throw value();
      }
      : () => {
        throw value();
      },
  });
}

Deno.test("a tool that throws what String() cannot convert ends with an error result", async () => {
  const tools = [
    throwing("bare_async", () => Object.create(null), true),
    throwing("bare_sync", () => Object.create(null), false),
    throwing("revoked", revokedProxy, true),
    throwing("unreadable", errorWithUnreadableMessage, true),
  ];
  const agent = createAgent({
    model: scriptedModel([tools.map((tool, i) => toolCall(tool.name, {}, `c${i}`)), [text("ok")]]),
    tools,
    toolTimeoutMs: 60_000,
  });
  await agent.prompt("go");
  deepEqual(resultsOf(agent.messages).map((r) => [r.isError, textOf(r)]), [
    [true, "[object Object]"],
    [true, "[object Object]"],
    [true, "(a value that cannot be shown as text)"],
    [true, "[object Error]"],
  ]);
});

Deno.test("a hook that throws what String() cannot convert blocks the call, naming its plugin", async () => {
  const echo = defineTool({
    name: "echo",
    description: "",
    parameters: Type.Object({}),
    execute: () => ({ content: [{ type: "text", text: "ran" }] }),
  });
  const agent = createAgent({
    model: scriptedModel([[toolCall("echo", {}, "c1")], [text("ok")]]),
    tools: [echo],
    plugins: [definePlugin({
      name: "odd",
      beforeToolCall: () => {
        throw Object.create(null);
      },
    })],
  });
  await agent.prompt("go");
  const [result] = resultsOf(agent.messages);
  equal(result.isError, true);
  equal(
    textOf(result),
    'Tool echo was blocked: plugin "odd" failed in beforeToolCall: [object Object]',
  );
});

Deno.test("a model that throws what String() cannot convert ends the run with an error message", async () => {
  const model: Model = {
    provider: "custom",
    id: "odd",
    stream() {
      throw Object.create(null);
    },
  };
  const agent = createAgent({ model });
  const events = recordEvents(agent);
  await agent.prompt("go");
  const last = agent.messages.at(-1) as AssistantMessage;
  equal(last.stopReason, "error");
  equal(last.errorMessage, "Model stream failed: [object Object]");
  equal(events.at(-1)?.type, "agent_end");
});
