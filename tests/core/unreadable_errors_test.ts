// Thrown values that String() cannot convert (an object without a prototype, a revoked proxy,
// an Error whose message getter throws) still end as results the model reads: before, an
// asynchronous tool rejecting with one crashed the process, and a model throwing one made
// prompt() reject without turn_end or agent_end.
import {
  type AssistantMessage,
  AssistantMessageStream,
  createAgent,
  definePlugin,
  defineTool,
  emptyUsage,
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

Deno.test("a custom model's arguments that throw when read end as an invalid-arguments result", async () => {
  // Found by a review: the loop's copy of the arguments threw outside any guard, and
  // prompt() rejected without agent_end.
  const unreadable = new Proxy({}, {
    ownKeys() {
      throw new Error("ownKeys boom");
    },
  });
  const echo = defineTool({
    name: "echo",
    description: "",
    parameters: Type.Object({ x: Type.Any() }),
    execute: () => ({ content: [{ type: "text", text: "ran" }] }),
  });
  let turn = 0;
  const model: Model = {
    provider: "custom",
    id: "odd",
    stream() {
      const stream = new AssistantMessageStream();
      const message: AssistantMessage = {
        role: "assistant",
        content: turn++ === 0
          ? [{ type: "toolCall", id: "c1", name: "echo", arguments: { x: unreadable } }]
          : [{ type: "text", text: "ok" }],
        stopReason: turn === 1 ? "toolUse" : "stop",
        usage: emptyUsage(),
        provider: "custom",
        model: "odd",
        timestamp: 0,
      };
      stream.push({ type: "done", reason: message.stopReason as "stop", message });
      return stream;
    },
  };
  const agent = createAgent({ model, tools: [echo] });
  const events = recordEvents(agent);
  await agent.prompt("go");
  const [result] = resultsOf(agent.messages);
  equal(result.isError, true);
  equal(textOf(result), 'Invalid arguments for tool "echo": cannot read them: ownKeys boom');
  equal(events.at(-1)?.type, "agent_end");
});
