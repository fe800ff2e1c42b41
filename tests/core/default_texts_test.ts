// The texts the loop writes itself when a hook says too little (no reason), a hook never
// answers, or a host calls it wrongly: each asserted exactly.
import {
  createAgent,
  definePlugin,
  emptyUsage,
  type Message,
  runLoop,
  scriptedModel,
  text,
  toolCall,
} from "@tack/agent";
import { deepEqual, equal, rejects } from "node:assert/strict";
import { echoTool, resultsOf, textOf } from "../support/agent_harness.ts";

const user = (content: string): Message => ({ role: "user", content, timestamp: 0 });

Deno.test("a beforeToolCall that blocks without a reason: the result says the tool was blocked", async () => {
  const echo = echoTool();
  const state = { systemPrompt: "", messages: [] as Message[], tools: [echo] };
  const added = await runLoop({
    state,
    prompts: [user("go")],
    config: {
      model: scriptedModel([[toolCall("echo", {}, "e1")], [text("ok")]]),
      beforeToolCall: () => ({ block: true }),
    },
    signal: new AbortController().signal,
    emit: () => {},
  });
  const [result] = resultsOf(added);
  equal(result.isError, true);
  equal(textOf(result), "Tool echo was blocked");
});

Deno.test("a beforeToolCall that defers without a reason: the pending call says it needs approval", async () => {
  const echo = echoTool();
  const state = {
    systemPrompt: "",
    messages: [] as Message[],
    tools: [echo],
    interrupted: undefined,
  };
  await runLoop({
    state,
    prompts: [user("go")],
    config: {
      model: scriptedModel([[toolCall("echo", {}, "e1")], [text("ok")]]),
      beforeToolCall: () => ({ defer: true }),
    },
    signal: new AbortController().signal,
    emit: () => {},
  });
  deepEqual(state.interrupted, {
    results: [],
    pending: [{
      toolCallId: "e1",
      toolName: "echo",
      args: {},
      reason: "Tool echo needs a person's approval",
    }],
  });
});

Deno.test("a plugin that defers without a reason: the pending call names the plugin", async () => {
  const agent = createAgent({
    model: scriptedModel([[toolCall("echo", {}, "e1")], [text("ok")]]),
    tools: [echoTool()],
    plugins: [definePlugin({ name: "asker", beforeToolCall: () => ({ defer: true }) })],
  });
  await agent.prompt("go");
  equal(agent.pending.length, 1);
  equal(agent.pending[0].reason, 'Tool call deferred by plugin "asker"');
  equal(agent.pending[0].deferredBy, "asker");
});

Deno.test("a prepareTurn that never answers ends the run with the turn it could not start", async () => {
  const model = scriptedModel([[text("never sent")]]);
  const agent = createAgent({ model, hookTimeoutMs: 20, prepareTurn: () => new Promise(() => {}) });
  const added = await agent.prompt("go");
  const last = added.at(-1);
  equal(last?.role, "assistant");
  if (last?.role !== "assistant") return;
  equal(last.stopReason, "error");
  equal(last.errorMessage, "Cannot start turn 1: prepareTurn did not answer within 20 ms");
  equal(model.requests.length, 0);
});

Deno.test("runLoop refuses to resume a transcript that does not end with an assistant message", async () => {
  const state = { systemPrompt: "", messages: [user("hi")], tools: [] };
  const events: string[] = [];
  await rejects(
    runLoop({
      state,
      prompts: [],
      config: { model: scriptedModel([[text("never sent")]]) },
      signal: new AbortController().signal,
      emit: (event) => events.push(event.type),
      resume: new Map(),
    }),
    new Error("Cannot resume: the transcript does not end with an assistant message"),
  );
  equal(state.messages.length, 1);
  deepEqual(events, [], "refused before the run starts: no agent_start without its agent_end");
});

Deno.test("runLoop refuses to resume with prompts, before the run starts", async () => {
  const call = toolCall("echo", {}, "c1");
  const state = {
    systemPrompt: "",
    messages: [user("hi"), {
      role: "assistant" as const,
      content: [call],
      stopReason: "toolUse" as const,
      usage: emptyUsage(),
      provider: "demo",
      model: "demo",
      timestamp: 0,
    }],
    tools: [echoTool()],
  };
  const events: string[] = [];
  await rejects(
    runLoop({
      state,
      prompts: [user("and also")],
      config: { model: scriptedModel([[text("never sent")]]) },
      signal: new AbortController().signal,
      emit: (event) => events.push(event.type),
      resume: new Map(),
    }),
    new Error("Cannot resume with prompts: a resumed batch goes on from the transcript"),
  );
  equal(state.messages.length, 2);
  deepEqual(events, []);
});

Deno.test("turn hooks with a hookTimeoutMs that is not one (negative) are bounded by toolTimeoutMs, as a call's hooks are", async () => {
  // Before, `prepareTurn` and `shouldStopAfterTurn` took -1 as it was: no bound, and a hook
  // that never answered held the run for good (a call's hooks skipped it: timeoutsFor).
  const never = () => new Promise<never>(() => {});
  const outcomes: Record<string, unknown> = {};
  for (const hook of ["prepareTurn", "shouldStopAfterTurn"] as const) {
    const state = { systemPrompt: "", messages: [] as Message[], tools: [echoTool()] };
    const run = runLoop({
      state,
      prompts: [user("go")],
      config: {
        model: scriptedModel([[text("hi")], [text("again")]]),
        toolTimeoutMs: 20,
        hookTimeoutMs: -1,
        [hook]: never,
      },
      signal: new AbortController().signal,
      emit: () => {},
    });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const held = new Promise<"held">((resolve) => (timer = setTimeout(resolve, 10_000, "held")));
    const added = await Promise.race([run, held]);
    clearTimeout(timer);
    outcomes[hook] = added === "held"
      ? added
      : added.map((message) =>
        message.role === "assistant"
          ? `${message.stopReason}: ${message.errorMessage ?? textOf(message)}`
          : message.role
      );
  }
  deepEqual(outcomes, {
    prepareTurn: ["user", "error: Cannot start turn 1: prepareTurn did not answer within 20 ms"],
    shouldStopAfterTurn: ["user", "stop: hi"],
  });
});
